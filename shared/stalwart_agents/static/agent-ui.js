var J=globalThis,F=J.ShadowRoot&&(J.ShadyCSS===void 0||J.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,gt=Symbol(),Ht=new WeakMap,B=class{constructor(t,e,s){if(this._$cssResult$=!0,s!==gt)throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.");this.cssText=t,this.t=e}get styleSheet(){let t=this.o,e=this.t;if(F&&t===void 0){let s=e!==void 0&&e.length===1;s&&(t=Ht.get(e)),t===void 0&&((this.o=t=new CSSStyleSheet).replaceSync(this.cssText),s&&Ht.set(e,t))}return t}toString(){return this.cssText}},G=r=>new B(typeof r=="string"?r:r+"",void 0,gt),$=(r,...t)=>{let e=r.length===1?r[0]:t.reduce((s,i,n)=>s+(o=>{if(o._$cssResult$===!0)return o.cssText;if(typeof o=="number")return o;throw Error("Value passed to 'css' function must be a 'css' function result: "+o+". Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.")})(i)+r[n+1],r[0]);return new B(e,r,gt)},jt=(r,t)=>{if(F)r.adoptedStyleSheets=t.map(e=>e instanceof CSSStyleSheet?e:e.styleSheet);else for(let e of t){let s=document.createElement("style"),i=J.litNonce;i!==void 0&&s.setAttribute("nonce",i),s.textContent=e.cssText,r.appendChild(s)}},yt=F?r=>r:r=>r instanceof CSSStyleSheet?(t=>{let e="";for(let s of t.cssRules)e+=s.cssText;return G(e)})(r):r;var{is:Be,defineProperty:qe,getOwnPropertyDescriptor:Ye,getOwnPropertyNames:We,getOwnPropertySymbols:ze,getPrototypeOf:Ke}=Object,Q=globalThis,It=Q.trustedTypes,Ve=It?It.emptyScript:"",Je=Q.reactiveElementPolyfillSupport,q=(r,t)=>r,$t={toAttribute(r,t){switch(t){case Boolean:r=r?Ve:null;break;case Object:case Array:r=r==null?r:JSON.stringify(r)}return r},fromAttribute(r,t){let e=r;switch(t){case Boolean:e=r!==null;break;case Number:e=r===null?null:Number(r);break;case Object:case Array:try{e=JSON.parse(r)}catch{e=null}}return e}},Mt=(r,t)=>!Be(r,t),Lt={attribute:!0,type:String,converter:$t,reflect:!1,useDefault:!1,hasChanged:Mt};Symbol.metadata??=Symbol("metadata"),Q.litPropertyMetadata??=new WeakMap;var x=class extends HTMLElement{static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}static get observedAttributes(){return this.finalize(),this._$Eh&&[...this._$Eh.keys()]}static createProperty(t,e=Lt){if(e.state&&(e.attribute=!1),this._$Ei(),this.prototype.hasOwnProperty(t)&&((e=Object.create(e)).wrapped=!0),this.elementProperties.set(t,e),!e.noAccessor){let s=Symbol(),i=this.getPropertyDescriptor(t,s,e);i!==void 0&&qe(this.prototype,t,i)}}static getPropertyDescriptor(t,e,s){let{get:i,set:n}=Ye(this.prototype,t)??{get(){return this[e]},set(o){this[e]=o}};return{get:i,set(o){let l=i?.call(this);n?.call(this,o),this.requestUpdate(t,l,s)},configurable:!0,enumerable:!0}}static getPropertyOptions(t){return this.elementProperties.get(t)??Lt}static _$Ei(){if(this.hasOwnProperty(q("elementProperties")))return;let t=Ke(this);t.finalize(),t.l!==void 0&&(this.l=[...t.l]),this.elementProperties=new Map(t.elementProperties)}static finalize(){if(this.hasOwnProperty(q("finalized")))return;if(this.finalized=!0,this._$Ei(),this.hasOwnProperty(q("properties"))){let e=this.properties,s=[...We(e),...ze(e)];for(let i of s)this.createProperty(i,e[i])}let t=this[Symbol.metadata];if(t!==null){let e=litPropertyMetadata.get(t);if(e!==void 0)for(let[s,i]of e)this.elementProperties.set(s,i)}this._$Eh=new Map;for(let[e,s]of this.elementProperties){let i=this._$Eu(e,s);i!==void 0&&this._$Eh.set(i,e)}this.elementStyles=this.finalizeStyles(this.styles)}static finalizeStyles(t){let e=[];if(Array.isArray(t)){let s=new Set(t.flat(1/0).reverse());for(let i of s)e.unshift(yt(i))}else t!==void 0&&e.push(yt(t));return e}static _$Eu(t,e){let s=e.attribute;return s===!1?void 0:typeof s=="string"?s:typeof t=="string"?t.toLowerCase():void 0}constructor(){super(),this._$Ep=void 0,this.isUpdatePending=!1,this.hasUpdated=!1,this._$Em=null,this._$Ev()}_$Ev(){this._$ES=new Promise(t=>this.enableUpdating=t),this._$AL=new Map,this._$E_(),this.requestUpdate(),this.constructor.l?.forEach(t=>t(this))}addController(t){(this._$EO??=new Set).add(t),this.renderRoot!==void 0&&this.isConnected&&t.hostConnected?.()}removeController(t){this._$EO?.delete(t)}_$E_(){let t=new Map,e=this.constructor.elementProperties;for(let s of e.keys())this.hasOwnProperty(s)&&(t.set(s,this[s]),delete this[s]);t.size>0&&(this._$Ep=t)}createRenderRoot(){let t=this.shadowRoot??this.attachShadow(this.constructor.shadowRootOptions);return jt(t,this.constructor.elementStyles),t}connectedCallback(){this.renderRoot??=this.createRenderRoot(),this.enableUpdating(!0),this._$EO?.forEach(t=>t.hostConnected?.())}enableUpdating(t){}disconnectedCallback(){this._$EO?.forEach(t=>t.hostDisconnected?.())}attributeChangedCallback(t,e,s){this._$AK(t,s)}_$ET(t,e){let s=this.constructor.elementProperties.get(t),i=this.constructor._$Eu(t,s);if(i!==void 0&&s.reflect===!0){let n=(s.converter?.toAttribute!==void 0?s.converter:$t).toAttribute(e,s.type);this._$Em=t,n==null?this.removeAttribute(i):this.setAttribute(i,n),this._$Em=null}}_$AK(t,e){let s=this.constructor,i=s._$Eh.get(t);if(i!==void 0&&this._$Em!==i){let n=s.getPropertyOptions(i),o=typeof n.converter=="function"?{fromAttribute:n.converter}:n.converter?.fromAttribute!==void 0?n.converter:$t;this._$Em=i;let l=o.fromAttribute(e,n.type);this[i]=l??this._$Ej?.get(i)??l,this._$Em=null}}requestUpdate(t,e,s,i=!1,n){if(t!==void 0){let o=this.constructor;if(i===!1&&(n=this[t]),s??=o.getPropertyOptions(t),!((s.hasChanged??Mt)(n,e)||s.useDefault&&s.reflect&&n===this._$Ej?.get(t)&&!this.hasAttribute(o._$Eu(t,s))))return;this.C(t,e,s)}this.isUpdatePending===!1&&(this._$ES=this._$EP())}C(t,e,{useDefault:s,reflect:i,wrapped:n},o){s&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,o??e??this[t]),n!==!0||o!==void 0)||(this._$AL.has(t)||(this.hasUpdated||s||(e=void 0),this._$AL.set(t,e)),i===!0&&this._$Em!==t&&(this._$Eq??=new Set).add(t))}async _$EP(){this.isUpdatePending=!0;try{await this._$ES}catch(e){Promise.reject(e)}let t=this.scheduleUpdate();return t!=null&&await t,!this.isUpdatePending}scheduleUpdate(){return this.performUpdate()}performUpdate(){if(!this.isUpdatePending)return;if(!this.hasUpdated){if(this.renderRoot??=this.createRenderRoot(),this._$Ep){for(let[i,n]of this._$Ep)this[i]=n;this._$Ep=void 0}let s=this.constructor.elementProperties;if(s.size>0)for(let[i,n]of s){let{wrapped:o}=n,l=this[i];o!==!0||this._$AL.has(i)||l===void 0||this.C(i,void 0,n,l)}}let t=!1,e=this._$AL;try{t=this.shouldUpdate(e),t?(this.willUpdate(e),this._$EO?.forEach(s=>s.hostUpdate?.()),this.update(e)):this._$EM()}catch(s){throw t=!1,this._$EM(),s}t&&this._$AE(e)}willUpdate(t){}_$AE(t){this._$EO?.forEach(e=>e.hostUpdated?.()),this.hasUpdated||(this.hasUpdated=!0,this.firstUpdated(t)),this.updated(t)}_$EM(){this._$AL=new Map,this.isUpdatePending=!1}get updateComplete(){return this.getUpdateComplete()}getUpdateComplete(){return this._$ES}shouldUpdate(t){return!0}update(t){this._$Eq&&=this._$Eq.forEach(e=>this._$ET(e,this[e])),this._$EM()}updated(t){}firstUpdated(t){}};x.elementStyles=[],x.shadowRootOptions={mode:"open"},x[q("elementProperties")]=new Map,x[q("finalized")]=new Map,Je?.({ReactiveElement:x}),(Q.reactiveElementVersions??=[]).push("2.1.2");var bt=globalThis,Bt=r=>r,Z=bt.trustedTypes,qt=Z?Z.createPolicy("lit-html",{createHTML:r=>r}):void 0,_t="$lit$",A=`lit$${Math.random().toFixed(9).slice(2)}$`,vt="?"+A,Fe=`<${vt}>`,U=document,W=()=>U.createComment(""),z=r=>r===null||typeof r!="object"&&typeof r!="function",xt=Array.isArray,Jt=r=>xt(r)||typeof r?.[Symbol.iterator]=="function",wt=`[ 	
\f\r]`,Y=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,Yt=/-->/g,Wt=/>/g,R=RegExp(`>|${wt}(?:([^\\s"'>=/]+)(${wt}*=${wt}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),zt=/'/g,Kt=/"/g,Ft=/^(?:script|style|textarea|title)$/i,At=r=>(t,...e)=>({_$litType$:r,strings:t,values:e}),d=At(1),Gr=At(2),Qr=At(3),S=Symbol.for("lit-noChange"),g=Symbol.for("lit-nothing"),Vt=new WeakMap,P=U.createTreeWalker(U,129);function Gt(r,t){if(!xt(r)||!r.hasOwnProperty("raw"))throw Error("invalid template strings array");return qt!==void 0?qt.createHTML(t):t}var Qt=(r,t)=>{let e=r.length-1,s=[],i,n=t===2?"<svg>":t===3?"<math>":"",o=Y;for(let l=0;l<e;l++){let a=r[l],p,u,h=-1,m=0;for(;m<a.length&&(o.lastIndex=m,u=o.exec(a),u!==null);)m=o.lastIndex,o===Y?u[1]==="!--"?o=Yt:u[1]!==void 0?o=Wt:u[2]!==void 0?(Ft.test(u[2])&&(i=RegExp("</"+u[2],"g")),o=R):u[3]!==void 0&&(o=R):o===R?u[0]===">"?(o=i??Y,h=-1):u[1]===void 0?h=-2:(h=o.lastIndex-u[2].length,p=u[1],o=u[3]===void 0?R:u[3]==='"'?Kt:zt):o===Kt||o===zt?o=R:o===Yt||o===Wt?o=Y:(o=R,i=void 0);let f=o===R&&r[l+1].startsWith("/>")?" ":"";n+=o===Y?a+Fe:h>=0?(s.push(p),a.slice(0,h)+_t+a.slice(h)+A+f):a+A+(h===-2?l:f)}return[Gt(r,n+(r[e]||"<?>")+(t===2?"</svg>":t===3?"</math>":"")),s]},K=class r{constructor({strings:t,_$litType$:e},s){let i;this.parts=[];let n=0,o=0,l=t.length-1,a=this.parts,[p,u]=Qt(t,e);if(this.el=r.createElement(p,s),P.currentNode=this.el.content,e===2||e===3){let h=this.el.content.firstChild;h.replaceWith(...h.childNodes)}for(;(i=P.nextNode())!==null&&a.length<l;){if(i.nodeType===1){if(i.hasAttributes())for(let h of i.getAttributeNames())if(h.endsWith(_t)){let m=u[o++],f=i.getAttribute(h).split(A),y=/([.?@])?(.*)/.exec(m);a.push({type:1,index:n,name:y[2],strings:f,ctor:y[1]==="."?tt:y[1]==="?"?et:y[1]==="@"?rt:H}),i.removeAttribute(h)}else h.startsWith(A)&&(a.push({type:6,index:n}),i.removeAttribute(h));if(Ft.test(i.tagName)){let h=i.textContent.split(A),m=h.length-1;if(m>0){i.textContent=Z?Z.emptyScript:"";for(let f=0;f<m;f++)i.append(h[f],W()),P.nextNode(),a.push({type:2,index:++n});i.append(h[m],W())}}}else if(i.nodeType===8)if(i.data===vt)a.push({type:2,index:n});else{let h=-1;for(;(h=i.data.indexOf(A,h+1))!==-1;)a.push({type:7,index:n}),h+=A.length-1}n++}}static createElement(t,e){let s=U.createElement("template");return s.innerHTML=t,s}};function D(r,t,e=r,s){if(t===S)return t;let i=s!==void 0?e._$Co?.[s]:e._$Cl,n=z(t)?void 0:t._$litDirective$;return i?.constructor!==n&&(i?._$AO?.(!1),n===void 0?i=void 0:(i=new n(r),i._$AT(r,e,s)),s!==void 0?(e._$Co??=[])[s]=i:e._$Cl=i),i!==void 0&&(t=D(r,i._$AS(r,t.values),i,s)),t}var X=class{constructor(t,e){this._$AV=[],this._$AN=void 0,this._$AD=t,this._$AM=e}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(t){let{el:{content:e},parts:s}=this._$AD,i=(t?.creationScope??U).importNode(e,!0);P.currentNode=i;let n=P.nextNode(),o=0,l=0,a=s[0];for(;a!==void 0;){if(o===a.index){let p;a.type===2?p=new j(n,n.nextSibling,this,t):a.type===1?p=new a.ctor(n,a.name,a.strings,this,t):a.type===6&&(p=new st(n,this,t)),this._$AV.push(p),a=s[++l]}o!==a?.index&&(n=P.nextNode(),o++)}return P.currentNode=U,i}p(t){let e=0;for(let s of this._$AV)s!==void 0&&(s.strings!==void 0?(s._$AI(t,s,e),e+=s.strings.length-2):s._$AI(t[e])),e++}},j=class r{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(t,e,s,i){this.type=2,this._$AH=g,this._$AN=void 0,this._$AA=t,this._$AB=e,this._$AM=s,this.options=i,this._$Cv=i?.isConnected??!0}get parentNode(){let t=this._$AA.parentNode,e=this._$AM;return e!==void 0&&t?.nodeType===11&&(t=e.parentNode),t}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(t,e=this){t=D(this,t,e),z(t)?t===g||t==null||t===""?(this._$AH!==g&&this._$AR(),this._$AH=g):t!==this._$AH&&t!==S&&this._(t):t._$litType$!==void 0?this.$(t):t.nodeType!==void 0?this.T(t):Jt(t)?this.k(t):this._(t)}O(t){return this._$AA.parentNode.insertBefore(t,this._$AB)}T(t){this._$AH!==t&&(this._$AR(),this._$AH=this.O(t))}_(t){this._$AH!==g&&z(this._$AH)?this._$AA.nextSibling.data=t:this.T(U.createTextNode(t)),this._$AH=t}$(t){let{values:e,_$litType$:s}=t,i=typeof s=="number"?this._$AC(t):(s.el===void 0&&(s.el=K.createElement(Gt(s.h,s.h[0]),this.options)),s);if(this._$AH?._$AD===i)this._$AH.p(e);else{let n=new X(i,this),o=n.u(this.options);n.p(e),this.T(o),this._$AH=n}}_$AC(t){let e=Vt.get(t.strings);return e===void 0&&Vt.set(t.strings,e=new K(t)),e}k(t){xt(this._$AH)||(this._$AH=[],this._$AR());let e=this._$AH,s,i=0;for(let n of t)i===e.length?e.push(s=new r(this.O(W()),this.O(W()),this,this.options)):s=e[i],s._$AI(n),i++;i<e.length&&(this._$AR(s&&s._$AB.nextSibling,i),e.length=i)}_$AR(t=this._$AA.nextSibling,e){for(this._$AP?.(!1,!0,e);t!==this._$AB;){let s=Bt(t).nextSibling;Bt(t).remove(),t=s}}setConnected(t){this._$AM===void 0&&(this._$Cv=t,this._$AP?.(t))}},H=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(t,e,s,i,n){this.type=1,this._$AH=g,this._$AN=void 0,this.element=t,this.name=e,this._$AM=i,this.options=n,s.length>2||s[0]!==""||s[1]!==""?(this._$AH=Array(s.length-1).fill(new String),this.strings=s):this._$AH=g}_$AI(t,e=this,s,i){let n=this.strings,o=!1;if(n===void 0)t=D(this,t,e,0),o=!z(t)||t!==this._$AH&&t!==S,o&&(this._$AH=t);else{let l=t,a,p;for(t=n[0],a=0;a<n.length-1;a++)p=D(this,l[s+a],e,a),p===S&&(p=this._$AH[a]),o||=!z(p)||p!==this._$AH[a],p===g?t=g:t!==g&&(t+=(p??"")+n[a+1]),this._$AH[a]=p}o&&!i&&this.j(t)}j(t){t===g?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,t??"")}},tt=class extends H{constructor(){super(...arguments),this.type=3}j(t){this.element[this.name]=t===g?void 0:t}},et=class extends H{constructor(){super(...arguments),this.type=4}j(t){this.element.toggleAttribute(this.name,!!t&&t!==g)}},rt=class extends H{constructor(t,e,s,i,n){super(t,e,s,i,n),this.type=5}_$AI(t,e=this){if((t=D(this,t,e,0)??g)===S)return;let s=this._$AH,i=t===g&&s!==g||t.capture!==s.capture||t.once!==s.once||t.passive!==s.passive,n=t!==g&&(s===g||i);i&&this.element.removeEventListener(this.name,this,s),n&&this.element.addEventListener(this.name,this,t),this._$AH=t}handleEvent(t){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)}},st=class{constructor(t,e,s){this.element=t,this.type=6,this._$AN=void 0,this._$AM=e,this.options=s}get _$AU(){return this._$AM._$AU}_$AI(t){D(this,t)}},Zt={M:_t,P:A,A:vt,C:1,L:Qt,R:X,D:Jt,V:D,I:j,H,N:et,U:rt,B:tt,F:st},Ge=bt.litHtmlPolyfillSupport;Ge?.(K,j),(bt.litHtmlVersions??=[]).push("3.3.3");var Xt=(r,t,e)=>{let s=e?.renderBefore??t,i=s._$litPart$;if(i===void 0){let n=e?.renderBefore??null;s._$litPart$=i=new j(t.insertBefore(W(),n),n,void 0,e??{})}return i._$AI(r),i};var St=globalThis,C=class extends x{constructor(){super(...arguments),this.renderOptions={host:this},this._$Do=void 0}createRenderRoot(){let t=super.createRenderRoot();return this.renderOptions.renderBefore??=t.firstChild,t}update(t){let e=this.render();this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),super.update(t),this._$Do=Xt(e,this.renderRoot,this.renderOptions)}connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}render(){return S}};C._$litElement$=!0,C.finalized=!0,St.litElementHydrateSupport?.({LitElement:C});var Qe=St.litElementPolyfillSupport;Qe?.({LitElement:C});(St.litElementVersions??=[]).push("4.2.2");var V=r=>r??g;function k(r,t){try{return globalThis[r]?.getItem(t)??null}catch{return null}}function E(r,t,e){try{globalThis[r]?.setItem(t,e)}catch{}}var te="Stalwart-Session",ee="stalwart-session",Ze="Stalwart-Stream-Ticket",_=class extends Error{constructor(t,e){super(e?.message||`HTTP ${t}`),this.status=t,this.code=e?.error??"",this.body=e}},I=class{constructor(t,e){this.base=String(t??"").replace(/\/+$/,""),this.fetcher=e,this.tickets=new Map}url(t,e=""){return`${this.base}/threads/${encodeURIComponent(t)}${e}`}ticket(t){return this.tickets.get(t)??""}send(t,e){return this.request("POST",t,"/messages",{text:e})}config(){return this.fetchJSON("GET",`${this.base}/config.json`)}interrupts(t){return this.request("GET",t,"/interrupts")}inbox(t={}){let e=Object.entries(t).filter(([,i])=>i!=null&&i!==""),s=new URLSearchParams(e.map(([i,n])=>[i,String(n)])).toString();return this.fetchJSON("GET",`${this.base}/interrupts${s?`?${s}`:""}`)}resume(t,e){return this.request("POST",t,"/resume",e)}feedback(t,e,s){return this.request("POST",t,"/feedback",{message:e,thumb:s})}async request(t,e,s,i){return this.fetchJSON(t,this.url(e,s),i,e)}async fetchJSON(t,e,s,i){let n={Accept:"application/json"},o=k("sessionStorage",ee);o&&(n[te]=o),s!==void 0&&(n["Content-Type"]="application/json");let l=await this.fetcher.call(globalThis,e,{method:t,headers:n,body:s===void 0?void 0:JSON.stringify(s),credentials:"same-origin"}),a=l.headers?.get(te);a&&E("sessionStorage",ee,a);let p=l.headers?.get(Ze);p&&i!==void 0&&this.tickets.set(i,p);let u=Xe(await l.text());if(!l.ok)throw new _(l.status,u);return u}};function Xe(r){try{return r?JSON.parse(r):null}catch{return null}}var re=Object.freeze({conversation:"Conversation",placeholder:"Write a message",send:"Send",sending:"Sending\u2026",waiting:"Waiting for your decision",confirmTitle:"Confirm {tool}?",argumentsTitle:"What it will use",origin_typed:"you typed it",origin_reply:"you answered it",origin_context:"from your account",origin_computed:"calculated",origin_model:"the assistant wrote it",origin_result:"from an earlier step",origin_agent:"from another assistant",reasonsTitle:"Why this needs you",irreversible:"Nothing can undo this step once it runs.",approve:"Approve",skip:"Skip this step",cancelAll:"Cancel everything",refused:"Not done",rule:"Rule",showRule:"Which rule?",rollbackTitle:"Undoing what this run did",undone:"Undone",notUndoable:"Could not be undone",stuck:"Undoing {tool} failed. What should happen?",retry:"Try again",doneByHand:"I undid it myself",abandon:"Leave it",unknownTitle:"Did {tool} take effect?",happened:"Yes, it happened",didNotHappen:"No, it did not",delegateTitle:"I couldn't work that out. Shall I pass it to the assistant?",delegateApprove:"Yes, pass it on",decline:"No",reconnecting:"Reconnecting\u2026",traceTitle:"What happened",step:"Step {step}",error:"Something went wrong: {message}",thumbUp:"Helpful",thumbDown:"Not helpful",thumbsNotice:"A rated message is kept to improve the assistant, and nothing else of the conversation.",sources:"Sources",inboxTitle:"Waiting for a decision",inboxEmpty:"Nothing is waiting for a decision.",refresh:"Refresh",loadMore:"Load more",loading:"Loading\u2026",threadTitle:"Thread {thread}",lastWords:"Last words",approvalsNone:"Needs {needed} approvals, none given yet",approvalsGiven:"Approved by {names} ({given} of {needed})",approvalCounted:"Approval counted: {given} of {needed}",answered:"Answered thread {thread}",origin_from:"from {tool}",showSource:"What it came from",sourceTooLarge:"Too large to show here.",approveIrreversible:"Approve \u2014 cannot be undone",answerLabel:"Your answer",reason_write:"It changes something outside this conversation.",reason_argument_origin:"You did not give {arg} yourself: check it.",reason_tainted_call:"It comes after {tool}, whose answer is not trusted.",reason_rule:"A rule asks for a person: {rule}.",reason_missing:"It needs {arg}, which was not given.",reason_unread:"The agent could not read that message.",reason_language:"The agent reads {language} only.",reason_undo_failed:"Undoing it failed: {error}.",reason_outcome_unknown:"It may or may not have happened: {cause}.",resultsTitle:"Results",recordApprove:"You approved: {title}",recordApproval:"You approved, and more approvals are needed: {title}",recordSkip:"You skipped: {title}",recordCancelAll:"Cancelled: {title}",recordAnswer:"You answered {value}: {title}",recordHappened:"You said it happened: {title}",recordDidNotHappen:"You said it did not happen: {title}",recordRetry:"You asked to try undoing again: {title}",recordDoneByHand:"You undid it yourself: {title}",recordAbandon:"You left it: {title}",recordDelegate:"You passed it on to the assistant",recordDecline:"You did not pass it on",recordOther:"You answered {decision}: {title}",recordBy:"by {who}",examplesTitle:"Try",origin_typed_by:"{who} typed it",origin_reply_by:"{who} answered it",origin_context_of:"from {who}\u2019s account",origin_typed_them:"the person who asked typed it",origin_reply_them:"the person who asked answered it",origin_context_them:"from the account of the person who asked",decidesApprover:"Needs an approver from {who}",waitsFor:"Waits for {who} to decide",askedBy:"Asked by {who}, {when}",askedByYou:"You asked, {when}",askedAt:"Asked {when}",reason_rule_failed:"The approver rule {rule} could not be checked; the team running this service has been told.",recordApproveBy:"{who} approved: {title}",recordApprovalBy:"{who} approved, and more approvals are needed: {title}",recordSkipBy:"{who} skipped: {title}",recordCancelAllBy:"{who} cancelled: {title}",recordAnswerBy:"{who} answered {value}: {title}",recordHappenedBy:"{who} said it happened: {title}",recordDidNotHappenBy:"{who} said it did not happen: {title}",recordRetryBy:"{who} asked to try undoing again: {title}",recordDoneByHandBy:"{who} undid it by hand: {title}",recordAbandonBy:"{who} left it: {title}",recordDelegateBy:"{who} passed it on to the assistant",recordDeclineBy:"{who} did not pass it on",recordOtherBy:"{who} answered {decision}: {title}",outcomeTitle:"What happened",outcome_done:"{title}: done",outcome_failed:"{title}: failed",outcome_unknown:"{title}: nobody knows yet whether it happened",outcome_started:"{title}: running",outcome_skipped:"{title}: skipped",outcome_cancelled:"{title}: cancelled",outcomeWaits:"It now waits for another answer.",outcomeCounted:"Your approval is counted; it waits for another person\u2019s before it runs.",linkExpires:"This link answers once, until {when}.",linkSignIn:"To answer, sign in: it waits in your inbox.",linkTaken:"Answer taken",linkUsed:"Already answered",linkUsedBy:"{who} already answered this: {decision}, {when}.",linkUsedWhat:"It was answered: {decision}, {when}.",linkUsedAlready:"This was already answered, and this link can no longer be used.",linkExpired:"This link has expired",linkBroken:"This link does not work",linkBrokenText:"It is not a link this service made, or it was changed.",linkSignInTitle:"Sign in to answer",linkNotTaken:"This answer was not taken",linkFailed:"The service failed on this link; its log has the details.",inboxAnswered:"You answered {decision}: {title}",filterTool:"Tool",filterKind:"Kind",allTools:"All tools",allKinds:"All kinds",kind_confirm:"Calls to approve",kind_ask:"Questions to answer",kind_outcome_unknown:"Calls that may not have happened",kind_saga_stuck:"Undos that failed",kind_delegate:"Turns to pass on"}),O={...re},kt=new Set;function tr(r){for(let[t,e]of Object.entries(r??{})){if(typeof e!="string")throw new TypeError(`setStrings: the string for "${t}" is not a string`);O[t]=e}for(let t of kt)t.requestUpdate()}function se(r,t={}){return r.replace(/\{(\w+)\}/g,(e,s)=>t[s]==null?e:String(t[s]))}function c(r,t){return se(Object.hasOwn(O,r)?O[r]:r,t)}var it=class{constructor(t){this.host=t,t.addController(this)}hostConnected(){kt.add(this.host)}hostDisconnected(){kt.delete(this.host)}};var w=class extends C{static get properties(){return{theme:{type:String,reflect:!0}}}constructor(){super(),new it(this)}};var er={approve:"recordApprove",skip:"recordSkip",cancel_all:"recordCancelAll",answer:"recordAnswer",happened:"recordHappened",did_not_happen:"recordDidNotHappen",retry:"recordRetry",done_by_hand:"recordDoneByHand",abandon:"recordAbandon",decline:"recordDecline"},ie="stalwart:none";function Et(r){return!r||r.outcome==="refused"||!r.decision?null:{pause:String(r.pause??""),kind:String(r.kind??""),decision:String(r.decision),outcome:String(r.outcome??"taken"),title:String(r.title||r.tool||""),value:r.value,who:rr(r),mine:sr(r),at:ir(r.at)}}function ne(r){let e=r.kind==="delegate"&&r.decision==="approve"?"recordDelegate":r.outcome==="approval"?"recordApproval":er[r.decision]??"recordOther",s=typeof r.value=="string"?r.value:JSON.stringify(r.value),i=!(r.mine??!r.who)&&r.who;return c(i?`${e}By`:e,{title:r.title,value:s,decision:r.decision,who:r.who})}function nt(r){let t=new Date(r);return Number.isNaN(t.getTime())?r:t.toLocaleString(void 0,{dateStyle:"medium",timeStyle:"short"})}function rr(r){let t=r.principal;return t?.iss===ie?"":String(r.name||r.by||t?.sub||"")}function sr(r){return typeof r.by_owner=="boolean"?r.by_owner:!r.principal||r.principal.iss===ie}function ir(r){return typeof r=="number"?new Date(r*1e3).toISOString():typeof r=="string"&&r?r:new Date().toISOString()}var oe=120;function nr(r){let t=ae(r);return t.length>oe?`${t.slice(0,oe-1)}\u2026`:t}function ae(r){return r==null?"":typeof r=="string"?r:Array.isArray(r)?r.map(t=>t&&typeof t=="object"?ae(t):String(t)).join("; "):typeof r=="object"?Object.entries(r).filter(([,t])=>t===null||typeof t!="object").map(([t,e])=>`${t}: ${e}`).join(", "):String(r)}function L(r,t=""){return d`<details class="result">
    <summary>${t?d`<span class="label">${t}</span> `:""}<span class="short">${nr(r)||JSON.stringify(r)}</span></summary>
    <pre class="whole">${JSON.stringify(r,null,2)}</pre>
  </details>`}function Tt(r){return!!r&&typeof r=="object"&&typeof r.key=="string"}function T(r){if(!Tt(r))return"";let t={...r.values??{}};return typeof t.when=="string"&&(t.when=nt(t.when)),c(r.key,t)}var or=["turn","step","pause","answer","run","rollback","recovered"],le=1e3,ar=3e4,lr=2,ce=r=>`stalwart-last-event-id:${r}`,ot=class{constructor(t){this.options=t,this.delay=le,this.source=null,this.timer=void 0,this.failures=0,this.stopped=!1}get last(){return k("sessionStorage",ce(this.options.thread))??""}start(){let{url:t,open:e}=this.options,s=this.options.ticket(),i=this.last,n=new URLSearchParams;s&&n.set("ticket",s),i&&n.set("last_event_id",i);let o=n.toString(),l=e(o?`${t}?${o}`:t);this.source=l,l.addEventListener("open",()=>this.opened()),l.addEventListener("error",()=>this.failed(l));for(let a of or)l.addEventListener(a,p=>this.received(a,p))}stop(){this.stopped=!0,clearTimeout(this.timer),this.source?.close(),this.source=null}opened(){this.delay=le,this.failures=0,this.options.onReconnecting(!1),this.options.onOpen()}failed(t){this.stopped||t!==this.source||(this.failures+=1,t.readyState===lr?(t.close(),this.options.onReconnecting(!0),this.retry()):this.failures>1&&this.options.onReconnecting(!0))}retry(){this.timer=setTimeout(async()=>{try{await this.options.renew()}catch{this.stopped||this.retry();return}this.stopped||this.start()},this.delay),this.delay=Math.min(this.delay*2,ar)}received(t,e){let s=e.lastEventId??"",i=this.last;if(/^\d+$/.test(s)&&/^\d+$/.test(i)&&Number(s)<=Number(i))return;s&&E("sessionStorage",ce(this.options.thread),s);let n=null;try{n=JSON.parse(e.data)}catch{return}this.options.onEvent(t,n,s)}};var cr=Object.freeze({"--stalwart-bg":"#ffffff","--stalwart-fg":"#1a1a1a","--stalwart-muted":"#595959","--stalwart-line":"#d0d0d0","--stalwart-accent":"#0b57d0","--stalwart-accent-fg":"#ffffff","--stalwart-warn":"#8a4b00","--stalwart-bad":"#b3261e","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"}),de=Object.freeze({"--stalwart-bg":"#121212","--stalwart-fg":"#f1f1f1","--stalwart-muted":"#bdbdbd","--stalwart-line":"#3c3c3c","--stalwart-accent":"#8ab4f8","--stalwart-accent-fg":"#0b0b0b","--stalwart-warn":"#ffb74d","--stalwart-bad":"#f28b82","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"});function Ct(r,t){let e=Object.entries(r).map(([s,i])=>`${s.replace("--stalwart-","--_")}: var(${s}, ${i});`);return`color-scheme: ${t}; ${e.join(" ")}`}var he=`
:host { ${Ct(cr,"light")} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${Ct(de,"dark")} } }
:host([theme="dark"]) { ${Ct(de,"dark")} }
`;var b=[G(he),$`
    :host {
      display: block;
      box-sizing: border-box;
      color: var(--_fg);
      background: var(--_bg);
      font-family: var(--_font);
      line-height: 1.4;
    }
    :host([hidden]) {
      display: none;
    }
    *,
    *::before,
    *::after {
      box-sizing: inherit;
    }
    [hidden] {
      display: none !important;
    }
    h2,
    h3 {
      margin: 0 0 calc(var(--_gap) / 2);
      font-size: 1em;
      font-weight: 600;
    }
    p,
    ul,
    ol,
    dl {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    ul,
    ol {
      padding-inline-start: calc(var(--_gap) * 1.5);
    }
    button {
      font: inherit;
      color: var(--_accent-fg);
      background: var(--_accent);
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 3) var(--_gap);
      cursor: pointer;
    }
    button.quiet {
      color: var(--_accent);
      background: var(--_bg);
    }
    button[aria-pressed='true'] {
      color: var(--_accent-fg);
      background: var(--_accent);
    }
    button:disabled {
      cursor: default;
      opacity: 0.6;
    }
    input,
    textarea {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 2);
    }
    :focus-visible {
      outline: 2px solid var(--_accent);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_muted);
    }
    .label {
      font-weight: 600;
    }
    details.result summary {
      cursor: pointer;
      overflow-wrap: anywhere;
    }
    details.result pre {
      margin: calc(var(--_gap) / 4) 0 0;
      padding: calc(var(--_gap) / 2);
      max-height: 16em;
      overflow: auto;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
      font-family: ui-monospace, monospace;
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
  `];var pe=[b,$`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    [part='log'] {
      flex: 1 1 auto;
      min-height: 0;
      overflow-y: auto;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    .turn,
    .reply {
      max-width: 85%;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-radius: var(--_radius);
      border: 1px solid var(--_line);
    }
    .turn {
      align-self: flex-end;
      border-color: var(--_accent);
    }
    .reply {
      align-self: flex-start;
    }
    .text {
      margin: 0;
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    .results {
      list-style: none;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: 0;
    }
    .results .label {
      font-family: ui-monospace, monospace;
    }
    .record {
      align-self: stretch;
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    .record p {
      margin: 0;
    }
    .record .what {
      font-weight: 600;
    }
    .about p {
      margin: 0 0 calc(var(--_gap) / 2);
    }
    .examples {
      list-style: none;
      padding: 0;
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
    }
    textarea:disabled {
      opacity: 0.6;
    }
    [part='thumbs'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      margin-top: calc(var(--_gap) / 2);
    }
    [part='status'].bad {
      color: var(--_bad);
    }
    [part='composer'] {
      display: flex;
      gap: calc(var(--_gap) / 2);
      align-items: flex-end;
    }
    textarea {
      flex: 1 1 auto;
      resize: vertical;
    }
    [part='thumbs-notice'] {
      margin: 0;
    }
    summary {
      cursor: pointer;
      color: var(--_accent);
    }
  `];var ue="stalwart-thread",fe=200,dr=Object.fromEntries(["entries","waiting","trace","text","sending","deciding","reconnecting","error","about"].map(r=>[r,{state:!0}])),hr=new Set(["pause","answer","run","rollback","recovered"]),at=class extends w{static get styles(){return pe}static get properties(){return{base:{type:String},thread:{type:String},thumbs:{type:Boolean},eventSource:{attribute:!1},fetcher:{attribute:!1},...dr}}constructor(){super(),this.base="",this.thread="",this.thumbs=!1,this.eventSource=t=>new EventSource(t),this.fetcher=globalThis.fetch,Object.assign(this,{entries:[],waiting:[],trace:[],text:"",sending:!1,deciding:0,reconnecting:!1,error:"",about:null}),this.link=null,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.connect()}disconnectedCallback(){super.disconnectedCallback(),this.disconnect()}willUpdate(t){["base","thread","eventSource","fetcher"].some(e=>t.has(e))&&this.connect()}updated(t){(t.has("entries")||t.has("trace"))&&this.keepView(),(t.has("entries")||t.has("waiting"))&&this.scrollLog()}render(){let t=V(this.theme||void 0),e=this.sources(),s=this.waiting.length>0;return d`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${c("conversation")} tabindex="0">
        ${this.entries.length||s?"":this.renderAbout()}
        ${this.entries.map(i=>this.renderEntry(i,t))}
        ${this.waiting.map(i=>d`<stalwart-confirm .interrupt=${i} theme=${t}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${c("sources")} ?hidden=${!e.length}>
        <ul part="sources">
          ${e.map(i=>d`<li>${gr(i)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${c("traceTitle")}</summary>
        <stalwart-trace .events=${this.trace} theme=${t}></stalwart-trace>
      </details>
      <div part="status" role="status" class=${this.error?"bad":""}>${this.statusText()}</div>
      <form part="composer" @submit=${this.submit}>
        <textarea
          name="text"
          rows="2"
          aria-label=${c("placeholder")}
          placeholder=${c("placeholder")}
          .value=${this.text}
          ?readonly=${this.sending}
          ?disabled=${s}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending||s}>${c("send")}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${c("thumbsNotice")}</p>
      <slot name="footer"></slot>`}renderEntry(t,e){switch(t.kind){case"turn":return d`<div class="entry turn" data-entry=${t.n} tabindex="-1"><p class="text">${t.text}</p></div>`;case"reply":return d`<div class="entry reply" data-entry=${t.n} data-id=${V(t.id)} tabindex="-1">
          ${t.text?d`<p class="text">${t.text}</p>`:""} ${fr(t.results??[])}
          ${this.thumbs&&t.id?this.renderThumbs(t):""}
        </div>`;case"record":return mr(t);case"refusal":return d`<stalwart-decision
          class="entry"
          data-entry=${t.n}
          tabindex="-1"
          rule=${t.rule??""}
          sentence=${t.sentence??""}
          theme=${e}
        ></stalwart-decision>`;default:return d`<stalwart-rollback class="entry" data-entry=${t.n} tabindex="-1" .report=${t.report} theme=${e}></stalwart-rollback>`}}renderAbout(){let t=this.about;if(!t?.agent)return"";let e=Array.isArray(t.examples)?t.examples.filter(s=>typeof s=="string"):[];return d`<section class="about" aria-labelledby="agent">
      <h2 id="agent">${t.agent}</h2>
      ${t.description?d`<p class="description">${t.description}</p>`:""}
      ${e.length?d`<h3 id="examples">${c("examplesTitle")}</h3>
            <ul class="examples" aria-labelledby="examples">
              ${e.map(s=>d`<li><button type="button" class="quiet example" @click=${()=>this.suggest(s)}>${s}</button></li>`)}
            </ul>`:""}
    </section>`}async suggest(t){this.text=t,await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus()}renderThumbs(t){return d`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${t.thumb==="up"?"true":"false"} @click=${()=>this.rate(t,"up")}>${c("thumbUp")}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${t.thumb==="down"?"true":"false"} @click=${()=>this.rate(t,"down")}>${c("thumbDown")}</button>
    </div>`}statusText(){if(this.error)return c("error",{message:this.error});if(this.sending||this.deciding)return c("sending");if(this.reconnecting)return c("reconnecting");if(!this.waiting.length)return"";let t=this.waiting.map(e=>T(e.card?.waits_for));return t.every(Boolean)?t[0]:c("waiting")}sources(){let t=[...this.entries].reverse().find(e=>e.kind==="reply");return Array.isArray(t?.sources)?t.sources:[]}connect(){if(this.disconnect(),!this.isConnected)return;let t=this.thread||$r(),e=new I(this.base,this.fetcher),s={thread:t,client:e,stream:null,epoch:0,reading:!1,again:!1};this.link=s;let i=yr(t);this.entries=i.entries,this.trace=i.trace,this.waiting=[],this.error="",this.reconnecting=!1,this.sending=!1,this.deciding=0,this.refresh(),this.describe(s)}async describe(t){try{let e=await t.client.config();t===this.link&&(this.about=e&&typeof e=="object"?e:null)}catch{t===this.link&&(this.about=null)}}follow(t){if(t!==this.link||t.stream)return;let{client:e,thread:s}=t;t.stream=new ot({url:e.url(s,"/stream"),thread:s,ticket:()=>e.ticket(s),renew:()=>e.interrupts(s),open:i=>this.eventSource(i),onEvent:(i,n,o)=>t===this.link&&this.streamed(i,n,o),onOpen:()=>t===this.link&&this.refresh(),onReconnecting:i=>{t===this.link&&(this.reconnecting=i)}});try{t.stream.start()}catch(i){this.fail(i)}}disconnect(){this.link?.stream?.stop(),this.link=null}streamed(t,e,s){t==="step"&&(this.trace=[...this.trace,e].slice(-fe)),t==="answer"&&this.recorded(e,s),hr.has(t)&&this.refresh()}recorded(t,e){let s=Et(t);if(!s||e&&this.entries.some(n=>n.kind==="record"&&n.event===e))return;let i=this.entries.find(n=>n.kind==="record"&&!n.event&&n.record?.pause===s.pause&&n.record?.decision===s.decision);i?this.entries=this.entries.map(n=>n===i?{...n,record:s,event:e||"seen"}:n):this.record([{kind:"record",record:s,event:e||"seen"}])}async refresh(){let t=this.link;if(t){if(t.reading||this.deciding){t.again=!0;return}t.reading=!0;try{do{t.again=!1;let e=t.epoch;try{let s=await t.client.interrupts(t.thread);t===this.link&&e===t.epoch&&(this.waiting=Ot(this.waiting,s?.waiting)),this.follow(t)}catch(s){t===this.link&&!(s instanceof _&&s.code==="not_found")&&this.fail(s)}}while(t.again&&t===this.link&&!this.deciding)}finally{t.reading=!1}}}submit(t){t.preventDefault(),this.send()}keydown(t){t.key==="Enter"&&!t.shiftKey&&!t.isComposing&&(t.preventDefault(),this.send())}typed(t){this.text=t.target.value}async send(){let t=this.link,e=this.text.trim();if(!t||!e||this.sending||this.waiting.length)return;let s=this.renderRoot.activeElement?.matches("button[type=submit]");this.sending=!0,this.error="";try{let i=await t.client.send(t.thread,e);if(t!==this.link)return;this.text="",this.record([{kind:"turn",text:e}]),this.apply(i),this.follow(t)}catch(i){t===this.link&&this.fail(i)}finally{t===this.link&&(this.sending=!1)}s&&(await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus())}async decide(t){let{interrupt:e,decision:s,value:i}=t.detail??{},n=this.link;if(!n||!e?.id||!s)return;this.deciding+=1,n.epoch+=1,this.error="";let o;try{let a={interrupt_id:e.id,decision:s,token:e.token};i!==void 0&&(a.value=i);let p=await n.client.resume(n.thread,a);if(n!==this.link)return;o=this.apply(p,this.decided(e,s,i,p)),this.follow(n)}catch(a){if(n!==this.link)return;this.fail(a),a instanceof _&&a.code==="interrupt_stale"||(this.waiting=this.waiting.map(u=>u===e?{...u}:u))}finally{n===this.link&&(this.deciding-=1,n.again&&!this.deciding&&this.refresh())}await this.updateComplete,((o===void 0?null:this.renderRoot.querySelector(`[data-entry="${o}"]`))??this.renderRoot.querySelector("[part=log]"))?.focus()}async rate(t,e){let s=this.link;if(!(!s||!t.id))try{await s.client.feedback(s.thread,t.id,e),s===this.link&&(this.entries=this.entries.map(i=>i.n===t.n?{...i,thumb:e}:i))}catch(i){s===this.link&&this.fail(i)}}decided(t,e,s,i){let n=this.entries.some(a=>a.kind==="record"&&a.record?.pause===t.id&&a.record?.decision===e),o=(i?.waiting??[]).some(a=>a.id===t.id),l=Et({...t,pause:t.id,decision:e,value:s,outcome:o?"approval":"taken",by:"",principal:null,at:void 0});return n||!l?[]:[{kind:"record",record:l,event:""}]}apply(t,e=[]){let s=[...e],i=t?.refusals??[],n=pr(t?.reply?.text??"",i),o=ur(t?.steps);(n||o.length)&&s.push({kind:"reply",id:t.reply?.id,text:n,results:o,sources:t.reply?.sources});for(let l of i)s.push({kind:"refusal",sentence:l.sentence,rule:l.rule??""});return t?.rollback&&s.push({kind:"rollback",report:t.rollback}),this.waiting=Ot(this.waiting,t?.waiting),this.record(s)}record(t){if(!t.length)return;let e=(this.entries.at(-1)?.n??0)+1;return this.entries=[...this.entries,...t.map((s,i)=>({...s,n:e+i}))].slice(-fe),e}fail(t){t instanceof _&&t.code==="run_waiting"?this.waiting=Ot(this.waiting,t.body?.waiting):t instanceof _&&t.code==="interrupt_stale"?this.refresh():this.error=t instanceof Error?t.message:String(t)}keepView(){this.link&&E("sessionStorage",me(this.link.thread),JSON.stringify({entries:this.entries,trace:this.trace}))}scrollLog(){let t=this.renderRoot.querySelector("[part=log]");t&&(t.scrollTop=t.scrollHeight)}};function Ot(r,t){return(t??[]).map(e=>r.find(s=>s.id===e.id&&s.token===e.token)??e)}function pr(r,t){let e=r;for(let s of t)s?.sentence&&(e=e.replace(s.sentence,""));return e.replace(/\s{2,}/g," ").trim()}function ur(r){return Array.isArray(r)?r.filter(t=>t?.status==="done"&&t.result!==null&&t.result!==void 0).map(t=>({tool:String(t.tool??""),result:t.result})):[]}function fr(r){return r.length?d`<ul class="results" aria-label=${c("resultsTitle")}>
    ${r.map(t=>d`<li>${L(t.result,t.tool)}</li>`)}
  </ul>`:""}function mr(r){let t=r.record;return t?d`<div class="entry record" data-entry=${r.n} data-decision=${t.decision} data-outcome=${t.outcome} tabindex="-1">
    <p class="what">${ne(t)}</p>
    <p class="meta muted"><time datetime=${t.at}>${nt(t.at)}</time></p>
  </div>`:""}function gr(r){if(r&&typeof r=="object"){let{title:t,url:e}=r;return String(t??e??JSON.stringify(r))}return String(r)}var me=r=>`stalwart-view:${r}`;function yr(r){try{let t=JSON.parse(k("sessionStorage",me(r))??"{}");return{entries:Array.isArray(t.entries)?t.entries:[],trace:Array.isArray(t.trace)?t.trace:[]}}catch{return{entries:[],trace:[]}}}function $r(){let r=k("localStorage",ue);return r||(r=wr(),E("localStorage",ue,r)),r}function wr(){if(typeof crypto.randomUUID=="function")return crypto.randomUUID();let r=crypto.getRandomValues(new Uint8Array(16));r[6]=r[6]&15|64,r[8]=r[8]&63|128;let t=[...r].map(e=>e.toString(16).padStart(2,"0")).join("");return`${t.slice(0,8)}-${t.slice(8,12)}-${t.slice(12,16)}-${t.slice(16,20)}-${t.slice(20)}`}var ge={typed:"origin_typed",reply:"origin_reply",context:"origin_context",computed:"origin_computed",model:"origin_model",result:"origin_result",agent:"origin_agent"};function br(r){let t=String(r??"").split(":")[0];return Object.hasOwn(ge,t)?ge[t]:void 0}function Nt(r){let t=br(r);return t?c(t):String(r??"")}function ye(r,t=e=>e){let e=String(r??""),[s,...i]=e.split(":"),n=`reason_${s.trim()}`;if(!Object.hasOwn(O,n))return e;let o=i.join(":").trim();return c(n,{arg:t(o),tool:o.replace(/^untrusted:/,""),rule:o,language:_r(o),error:o,cause:o})}function _r(r){try{let t=globalThis.document?.documentElement?.lang||void 0;return new Intl.DisplayNames(t?[t]:void 0,{type:"language"}).of(r)??r}catch{return r}}var $e=[b,$`
    [part='confirm'] {
      border: 1px solid var(--_accent);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    [part='turn'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: var(--_gap);
      border-inline-start: 4px solid var(--_line);
    }
    dl {
      display: grid;
      /* Where a value came from sits beside it, not across a wide screen. */
      grid-template-columns: max-content auto 1fr;
      gap: calc(var(--_gap) / 4) var(--_gap);
    }
    dt {
      font-weight: 600;
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    .value,
    .tool {
      font-family: ui-monospace, monospace;
    }
    [part='irreversible'] {
      color: var(--_warn);
      font-weight: 600;
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_warn);
    }
    button.irreversible {
      background: var(--_warn);
      border-color: var(--_warn);
    }
    /* Destructive: the refusal colour, outlined, never the accent's filled look of the answer that goes on. */
    button.danger {
      color: var(--_bad);
      background: var(--_bg);
      border-color: var(--_bad);
    }
    [part='asked'],
    [part='deciders'] {
      margin: 0 0 calc(var(--_gap) / 4);
    }
    [part='waits-for'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_accent);
    }
    dt {
      grid-column: 1;
    }
    .too-large {
      font-style: italic;
    }
    [part='choices'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      margin: 0;
    }
    [part='choices'] label {
      flex: 1 1 100%;
      font-weight: 600;
    }
    [part='choices'] input {
      flex: 1 1 12em;
    }
    @media (max-width: 480px) {
      dl {
        grid-template-columns: max-content auto;
      }
      dd.origin {
        grid-column: 2;
      }
    }
  `];var we={approve:"approve",skip:"skip",cancel_all:"cancelAll",happened:"happened",did_not_happen:"didNotHappen",retry:"retry",done_by_hand:"doneByHand",abandon:"abandon",answer:"send",decline:"decline"},be={confirm:"confirmTitle",outcome_unknown:"unknownTitle",saga_stuck:"stuck",delegate:"delegateTitle"},vr={chosen:{state:!0}},xr=new Set(["cancel_all","abandon"]),_e={primary:"",secondary:"quiet",danger:"danger"},lt=class extends w{static get styles(){return $e}static get properties(){return{interrupt:{attribute:!1},...vr}}constructor(){super(),this.interrupt=null,this.chosen=""}willUpdate(t){t.has("interrupt")&&(this.chosen="")}render(){let t=this.interrupt;if(!t)return d``;let e=Ar(t),s=e?.kind||t.kind,i=Sr(t,e),n=e?e.question:t.question,o=e?e.irreversible:t.irreversible,l=T(e?.waits_for),a=l&&e?.deciders?.key==="decidesApprover"?"":T(e?.deciders),p=T(e?.asked);return d`<section part="confirm" aria-labelledby="title" data-kind=${s}>
      ${o?d`<p part="irreversible">${c("irreversible")}</p>`:""}
      <h2 id="title" data-title=${t.title??""}>${i}</h2>
      ${s==="confirm"&&n&&n!==`${i}?`?d`<p class="question">${n}</p>`:""}
      ${p?d`<p part="asked" class="muted" data-when=${e?.asked?.values?.when??""}>${p}</p>`:""}
      ${a?d`<p part="deciders" data-key=${e?.deciders?.key}>${a}</p>`:""}
      ${l?d`<p part="waits-for">${l}</p>`:""}
      ${s==="delegate"?d`<blockquote part="turn">${Rt(t.turn)}</blockquote>`:""}
      ${this.renderArguments(kr(t,e))} ${this.renderReasons(Er(t,e))}
      ${s==="saga_stuck"?this.renderPending(t.pending??[]):""}
      ${s==="ask"?this.renderAsk(e):this.renderChoices(Tr(t,e,o))}
    </section>`}renderArguments(t){return t.length?d`<div part="arguments">
      <h3>${c("argumentsTitle")}</h3>
      <dl>
        ${t.map(e=>d`<dt data-name=${e.name} title=${e.name}>${e.label}</dt>
            <dd class="value">${e.shown}</dd>
            <dd class="origin muted" data-origin=${e.origin}>${e.words}</dd>`)}
      </dl>
    </div>`:""}renderReasons(t){return t.length?d`<div part="reasons">
      <h3>${c("reasonsTitle")}</h3>
      <ul>
        ${t.map(e=>d`<li data-reason=${e.code} title=${e.code}>${e.text}</li>`)}
      </ul>
    </div>`:""}renderPending(t){return t.length?d`<ul class="pending">
      ${t.map(e=>d`<li>${c("step",{step:e.step})} <span class="tool">${e.tool}</span></li>`)}
    </ul>`:""}renderChoices(t){return t.length?d`<div part="choices">
      ${t.map(e=>d`<button
          type="button"
          class=${e.className}
          data-answer=${e.decision}
          data-variant=${e.style}
          ?disabled=${!!this.chosen}
          @click=${()=>this.decide(e.decision)}
        >${e.text}</button>`)}
    </div>`:""}renderAsk(t){return t&&!t.answers.some(e=>e.decision==="answer")?"":d`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${c("answerLabel")}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" data-variant="primary" ?disabled=${!!this.chosen}>${c("send")}</button>
    </form>`}submitAnswer(t){t.preventDefault();let s=t.currentTarget.elements.namedItem("value").value;s.trim()&&this.decide("answer",s)}decide(t,e){if(this.chosen||!this.interrupt)return;this.chosen=t;let s=e===void 0?{interrupt:this.interrupt,decision:t}:{interrupt:this.interrupt,decision:t,value:e};this.dispatchEvent(new CustomEvent("stalwart-decision",{bubbles:!0,composed:!0,detail:s}))}};function Ar(r){let t=r.card;return t&&typeof t=="object"&&Array.isArray(t.answers)?t:null}function Sr(r,t){let e=t?.kind||r.kind;if(e==="ask")return r.prompt||t?.question||r.question||"";let s=t?.title||r.title,i=s||r.tool;return e==="confirm"&&s&&s!==r.tool?s:Object.hasOwn(be,e)?c(be[e],{tool:i}):t?.question||r.question||e}function kr(r,t){let e=Array.isArray(r.arguments)?r.arguments:[];return t?(Array.isArray(t.arguments)?t.arguments:[]).map(s=>{let i=e.find(o=>o.name===s.name),n=s.source?.title?ve(s.source.title,s.source,i?.source?.truncated):Tt(s.origin)?T(s.origin):Nt(s.origin);return{name:s.name,label:s.label||s.name,shown:s.shown??Rt(s.value),origin:i?.origin??s.origin?.key??"",words:n}}):e.map(s=>({name:s.name,label:s.label||s.name,shown:Rt(s.value),origin:s.origin??"",words:Or(s)}))}function Er(r,t){let e=Array.isArray(r.reasons)?r.reasons:[];if(!t){let s=Array.isArray(r.arguments)?r.arguments:[],i=n=>s.find(o=>o.name===n)?.label||n;return e.map(n=>({code:n,text:ye(n,i)}))}return(Array.isArray(t.reasons)?t.reasons:[]).map((s,i)=>({code:String(e[i]??s?.key??""),text:T(s)}))}function Tr(r,t,e){let s=(i,n)=>n==="primary"&&e&&i==="approve"?"irreversible":_e[n]??"quiet";return t?t.answers.map(i=>{let n=Object.hasOwn(_e,i.style)?i.style:"secondary";return{decision:i.decision,text:T(i.words)||i.decision,style:n,className:s(i.decision,n)}}):(r.answers??[]).map((i,n)=>{let o=xr.has(i)?"danger":n?"secondary":"primary";return{decision:i,text:Cr(r,i),style:o,className:s(i,o)}})}function Cr(r,t){return r.kind==="delegate"&&t==="approve"?c("delegateApprove"):r.irreversible&&t==="approve"?c("approveIrreversible"):Pt(t)}function Pt(r){return Object.hasOwn(we,r)?c(we[r]):r}function Or(r){let t=r.source;return t?.tool?ve(t.tool,t,t.truncated):Nt(r.origin)}function ve(r,t,e){let s=c("origin_from",{tool:r});return e?d`${s} <span class="too-large">${c("sourceTooLarge")}</span>`:Object.hasOwn(t,"value")?d`${s} ${L(t.value,c("showSource"))}`:s}function Rt(r){return typeof r=="string"?r:JSON.stringify(r)}var xe=[b,$`
    [part='decision'] {
      border-inline-start: 4px solid var(--_bad);
      padding: calc(var(--_gap) / 2) var(--_gap);
    }
    .refused {
      color: var(--_bad);
    }
    [part='rule'] {
      margin-top: calc(var(--_gap) / 2);
    }
    .rule {
      font-family: ui-monospace, monospace;
      overflow-wrap: anywhere;
    }
  `];var Nr={open:{state:!0}},ct=class extends w{static get styles(){return xe}static get properties(){return{rule:{type:String},sentence:{type:String},...Nr}}constructor(){super(),this.rule="",this.sentence="",this.open=!1}render(){return d`<div part="decision">
      <p><span class="label refused">${c("refused")}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule?d`<button type="button" class="quiet" aria-expanded=${this.open?"true":"false"} aria-controls="rule" @click=${this.toggle}>${c("showRule")}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${c("rule")}</span> <span class="rule">${this.rule}</span>
            </div>`:""}
    </div>`}toggle(){this.open=!this.open}};var Ae={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Se=r=>(...t)=>({_$litDirective$:r,values:t}),dt=class{constructor(t){}get _$AU(){return this._$AM._$AU}_$AT(t,e,s){this._$Ct=t,this._$AM=e,this._$Ci=s}_$AS(t,e){return this.update(t,e)}update(t,e){return this.render(...e)}};var{I:Rr}=Zt,ke=r=>r;var Ee=()=>document.createComment(""),M=(r,t,e)=>{let s=r._$AA.parentNode,i=t===void 0?r._$AB:t._$AA;if(e===void 0){let n=s.insertBefore(Ee(),i),o=s.insertBefore(Ee(),i);e=new Rr(n,o,r,r.options)}else{let n=e._$AB.nextSibling,o=e._$AM,l=o!==r;if(l){let a;e._$AQ?.(r),e._$AM=r,e._$AP!==void 0&&(a=r._$AU)!==o._$AU&&e._$AP(a)}if(n!==i||l){let a=e._$AA;for(;a!==n;){let p=ke(a).nextSibling;ke(s).insertBefore(a,i),a=p}}}return e},N=(r,t,e=r)=>(r._$AI(t,e),r),Pr={},Te=(r,t=Pr)=>r._$AH=t,Ce=r=>r._$AH,ht=r=>{r._$AR(),r._$AA.remove()};var Oe=(r,t,e)=>{let s=new Map;for(let i=t;i<=e;i++)s.set(r[i],i);return s},Ne=Se(class extends dt{constructor(r){if(super(r),r.type!==Ae.CHILD)throw Error("repeat() can only be used in text expressions")}dt(r,t,e){let s;e===void 0?e=t:t!==void 0&&(s=t);let i=[],n=[],o=0;for(let l of r)i[o]=s?s(l,o):o,n[o]=e(l,o),o++;return{values:n,keys:i}}render(r,t,e){return this.dt(r,t,e).values}update(r,[t,e,s]){let i=Ce(r),{values:n,keys:o}=this.dt(t,e,s);if(!Array.isArray(i))return this.ut=o,n;let l=this.ut??=[],a=[],p,u,h=0,m=i.length-1,f=0,y=n.length-1;for(;h<=m&&f<=y;)if(i[h]===null)h++;else if(i[m]===null)m--;else if(l[h]===o[f])a[f]=N(i[h],n[f]),h++,f++;else if(l[m]===o[y])a[y]=N(i[m],n[y]),m--,y--;else if(l[h]===o[y])a[y]=N(i[h],n[y]),M(r,a[y+1],i[h]),h++,y--;else if(l[m]===o[f])a[f]=N(i[m],n[f]),M(r,i[h],i[m]),m--,f++;else if(p===void 0&&(p=Oe(o,f,y),u=Oe(l,h,m)),p.has(l[h]))if(p.has(l[m])){let v=u.get(o[f]),mt=v!==void 0?i[v]:null;if(mt===null){let Dt=M(r,i[h]);N(Dt,n[f]),a[f]=Dt}else a[f]=N(mt,n[f]),M(r,i[h],mt),i[v]=null;f++}else ht(i[m]),m--;else ht(i[h]),h++;for(;f<=y;){let v=M(r,a[y+1]);N(v,n[f]),a[f++]=v}for(;h<=m;){let v=i[h++];v!==null&&ht(v)}return this.ut=o,Te(r,a),S}});var Re=[b,$`
    :host {
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
      padding: var(--_gap);
    }
    .bar {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: calc(var(--_gap) / 2);
    }
    [part='title'],
    [part='empty'] {
      margin: 0;
    }
    [part='status'].bad,
    [part='row-error'] {
      color: var(--_bad);
    }
    [part='list'] {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-direction: column;
      gap: var(--_gap);
    }
    [part='row'] {
      display: flex;
      flex-direction: column;
      gap: calc(var(--_gap) / 2);
      padding: var(--_gap);
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
    }
    [part='row'] p {
      margin: 0;
    }
    /* The thread's words place the call in its conversation; the card's title is what the eye should land on. */
    [part='thread'] {
      color: var(--_muted);
      overflow-wrap: anywhere;
    }
    /* The row is the card's box: no second border inside it. */
    stalwart-confirm::part(confirm) {
      border: none;
      padding: 0;
    }
    [part='last-words'] q {
      white-space: pre-wrap;
      overflow-wrap: anywhere;
    }
    [part='approvals'] {
      color: var(--_muted);
    }
    [part='filters'] {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2) var(--_gap);
    }
    .filter {
      display: inline-flex;
      align-items: center;
      gap: calc(var(--_gap) / 2);
    }
    .filter label {
      font-weight: 600;
    }
    select {
      font: inherit;
      color: var(--_fg);
      background: var(--_bg);
      border: 1px solid var(--_muted);
      border-radius: var(--_radius);
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
    }
    [part='status'] .line {
      display: block;
    }
    /* What the last answer did stays in sight while the person works down a long list. */
    [part='status'].notice {
      position: sticky;
      top: 0;
      z-index: 1;
      background: var(--_bg);
      padding: calc(var(--_gap) / 2) var(--_gap);
      border-inline-start: 4px solid var(--_accent);
    }
    [part='status'].notice .line:first-child {
      font-weight: 600;
    }
    [part='status'] .bad {
      color: var(--_bad);
    }
    [part='more'] {
      align-self: flex-start;
    }
  `];var Ur=Object.fromEntries(["rows","next","loaded","loading","error","notice","failed","tools"].map(r=>[r,{state:!0}])),Dr=["confirm","ask","outcome_unknown","saga_stuck","delegate"],Hr=["base","kind","tool","pageSize","fetcher"],jr=50,Ir=4,pt=class extends w{static get styles(){return Re}static get properties(){return{base:{type:String},kind:{type:String,reflect:!0},tool:{type:String,reflect:!0},pageSize:{type:Number,attribute:"page-size"},fetcher:{attribute:!1},...Ur}}constructor(){super(),this.base="",this.kind="",this.tool="",this.pageSize=jr,this.fetcher=globalThis.fetch,Object.assign(this,{rows:[],next:"",loaded:!1,loading:!1,error:"",notice:[],failed:{},tools:{}}),this.client=null,this.epoch=0,this.addEventListener("stalwart-decision",t=>this.decide(t))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.refresh()}disconnectedCallback(){super.disconnectedCallback(),this.epoch+=1}willUpdate(t){Hr.some(e=>t.has(e))&&(this.client=new I(this.base,this.fetcher),Object.assign(this,{rows:[],next:"",loaded:!1,failed:{}}),this.isConnected&&this.refresh())}updated(){for(let t of this.renderRoot.querySelectorAll("[part=filters] select")){let e=t.name==="tool"?this.tool:this.kind;t.value!==e&&(t.value=e??"")}}render(){let t=V(this.theme||void 0);return d`<div class="bar">
        <h2 id="title" part="title">${c("inboxTitle")}</h2>
        <button type="button" part="refresh" class="quiet" ?disabled=${this.loading} @click=${this.refresh}>${c("refresh")}</button>
      </div>
      ${this.renderFilters()}
      <div part="status" role="status" class=${this.error?"bad":this.notice.length&&!this.loading?"notice":""}>${this.statusText()}</div>
      <p part="empty" class="muted" tabindex="-1" ?hidden=${!this.loaded||this.rows.length>0||!!this.next}>${c("inboxEmpty")}</p>
      <ul part="list" role="list" aria-labelledby="title" ?hidden=${!this.rows.length}>
        ${Ne(this.rows,e=>e.id,(e,s)=>this.renderRow(e,s,t))}
      </ul>
      <button type="button" part="more" class="quiet" ?hidden=${!this.next} ?disabled=${this.loading} @click=${this.more}>${c("loadMore")}</button>`}renderFilters(){let t=Object.entries({...this.tool?{[this.tool]:this.tool}:{},...this.tools}).sort((i,n)=>i[1].localeCompare(n[1])),e=(i,n,o)=>d`<option value=${i} ?selected=${i===o}>${n}</option>`,s=!t.length&&!this.kind&&!this.rows.length;return d`<div part="filters" ?hidden=${s}>
      <span class="filter">
        <label for="filter-tool">${c("filterTool")}</label>
        <select id="filter-tool" name="tool" @change=${i=>this.tool=Pe(i)}>
          ${e("",c("allTools"),this.tool)} ${t.map(([i,n])=>e(i,n,this.tool))}
        </select>
      </span>
      <span class="filter">
        <label for="filter-kind">${c("filterKind")}</label>
        <select id="filter-kind" name="kind" @change=${i=>this.kind=Pe(i)}>
          ${e("",c("allKinds"),this.kind)} ${Dr.map(i=>e(i,c(`kind_${i}`),this.kind))}
        </select>
      </span>
    </div>`}renderRow(t,e,s){let i=this.failed[t.id];return d`<li part="row" class="row" data-id=${t.id} data-thread=${t.thread} tabindex="-1" aria-labelledby=${`thread-${e}`}>
      <p part="thread" id=${`thread-${e}`}>${t.turn?d`<q part="last-words">${t.turn}</q>`:c("threadTitle",{thread:t.thread})}</p>
      ${t.approvals&&!t.card?d`<p part="approvals">${Br(t.approvals)}</p>`:""}
      ${i?d`<p part="row-error" role="alert">${c("error",{message:i})}</p>`:""}
      <stalwart-confirm .interrupt=${t} theme=${s}></stalwart-confirm>
    </li>`}statusText(){return this.error?c("error",{message:this.error}):this.loading?c("loading"):this.notice.map(t=>d`<span class=${t.bad?"line bad":"line"}>${t.text}</span>`)}refresh(){return this.read("")}async more(){if(!this.next)return;let t=this.rows.length,e=this.renderRoot.activeElement?.matches("[part=more]");await this.read(this.next),e&&this.rows.length>t&&this.focusRow(t)}async read(t){let e=this.client;if(!e||t&&this.loading)return;let s=t?this.epoch:++this.epoch;this.loading=!0,this.error="",t||(this.notice=[]);try{let i=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:t});for(let o=0;o<Ir&&!i?.waiting?.length&&i?.next;o+=1){if(s!==this.epoch)return;i=await e.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:i.next})}if(s!==this.epoch)return;let n=Array.isArray(i?.waiting)?i.waiting:[];t?this.rows=[...this.rows,...n.filter(o=>!this.rows.some(l=>l.id===o.id))]:(this.rows=n,this.failed={}),this.next=i?.next||"",this.loaded=!0,this.tools=Mr(this.tools,n)}catch(i){s===this.epoch&&(this.error=Ue(i))}finally{s===this.epoch&&(this.loading=!1)}}async decide(t){let{interrupt:e,decision:s,value:i}=t.detail??{},n=this.client;if(!n||!e?.id||!s)return;let o=this.epoch,l={interrupt_id:e.id,decision:s,token:e.token};i!==void 0&&(l.value=i),this.failed=De(this.failed,e.id);try{let a=await n.resume(e.thread,l);if(o!==this.epoch)return;let p=(a?.waiting??[]).find(u=>u.id===e.id);p?this.counted({...e,...p}):this.answered(e,s,i,a)}catch(a){if(o!==this.epoch)return;this.failed={...this.failed,[e.id]:Ue(a)},a instanceof _&&a.code==="interrupt_stale"||(this.rows=this.rows.map(h=>h===e?{...h}:h));let u=this.rows.findIndex(h=>h.id===e.id);u>=0&&this.focusRow(u)}}counted(t){this.rows=this.rows.map(e=>e.id===t.id?t:e),this.notice=[{text:c("outcomeCounted")}],this.focusRow(this.rows.indexOf(t))}answered(t,e,s,i){let n=this.rows.findIndex(l=>l.id===t.id),o=(Array.isArray(i?.waiting)?i.waiting:[]).filter(l=>l?.id&&l.id!==t.id&&!this.rows.some(a=>a.id===l.id)).map(l=>({turn:t.turn,...l}));this.rows=[...this.rows.slice(0,Math.max(n,0)),...o,...this.rows.slice(n+1)],this.failed=De(this.failed,t.id),this.notice=Lr(t,e,s,i,o.length>0),this.focusRow(Math.min(n,this.rows.length-1))}async focusRow(t){await this.updateComplete;let e=this.renderRoot.querySelectorAll("[part=row]"),s=this.next?this.renderRoot.querySelector("[part=more]"):null;(e[t]??e[e.length-1]??s??this.renderRoot.querySelector("[part=empty]"))?.focus()}};function Lr(r,t,e,s,i){let n=r.card?.title||r.title||r.tool||"",o=t==="answer"&&e!==void 0?String(e):Pt(t),l=[{text:c("inboxAnswered",{decision:o,title:n})}],p=[...Array.isArray(s?.steps)?s.steps:[]].reverse().find(h=>h?.step===r.step&&(!r.tool||h.tool===r.tool)),u=`outcome_${p?.status}`;return p&&Object.hasOwn(O,u)&&l.push({text:c(u,{title:n}),bad:p.status==="failed"}),i&&l.push({text:c("outcomeWaits")}),l}function Mr(r,t){let e=t.filter(s=>s?.tool&&!Object.hasOwn(r,s.tool));return e.length?{...r,...Object.fromEntries(e.map(s=>[s.tool,String(s.label||s.tool)]))}:r}function Pe(r){return r.currentTarget.value}function Br(r){let t=r.given??[];if(!t.length)return c("approvalsNone",{needed:r.needed});let e=t.map(s=>s.by||s.principal?.sub||"").join(", ");return c("approvalsGiven",{names:e,given:t.length,needed:r.needed})}function Ue(r){return r instanceof Error?r.message:String(r)}function De(r,t){if(!Object.hasOwn(r,t))return r;let e={...r};return delete e[t],e}var He=[b,$`
    [part='rollback'] {
      border: 1px solid var(--_line);
      border-radius: var(--_radius);
      padding: var(--_gap);
    }
    .not-undone .label {
      color: var(--_bad);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
  `];var ut=class extends w{static get styles(){return He}static get properties(){return{report:{attribute:!1}}}constructor(){super(),this.report=null}render(){let t=this.report?.undone??[],e=this.report?.not_undone??[];return d`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${c("rollbackTitle")}</h2>
      ${t.length?d`<ul class="undone">
            ${t.map(s=>je(c("undone"),s,s.by==="person"?s.by:""))}
          </ul>`:""}
      ${e.length?d`<ul class="not-undone">
            ${e.map(s=>je(c("notUndoable"),s,s.why))}
          </ul>`:""}
    </section>`}};function je(r,t,e){return d`<li>
    <span class="label">${r}</span> <span class="tool">${t.tool}</span>
    ${e?d` <span class="muted">(${e})</span>`:""}
  </li>`}var Ie=[b,$`
    [part='trace'] {
      padding: calc(var(--_gap) / 2) 0;
    }
    ol {
      list-style: none;
      padding: 0;
    }
    li {
      display: flex;
      flex-wrap: wrap;
      gap: calc(var(--_gap) / 2);
      padding: calc(var(--_gap) / 4) 0;
      border-bottom: 1px solid var(--_line);
    }
    .tool {
      font-family: ui-monospace, monospace;
    }
    details.result {
      flex: 1 1 100%;
    }
  `];var ft=class extends w{static get styles(){return Ie}static get properties(){return{events:{attribute:!1}}}constructor(){super(),this.events=[]}render(){let t=(this.events??[]).filter(e=>e&&e.tool&&(e.type??"step")==="step");return d`<section part="trace" aria-labelledby="title">
      <h2 id="title">${c("traceTitle")}</h2>
      <ol>
        ${t.map(e=>d`<li>
            <span class="step">${c("step",{step:qr(e)})}</span>
            <span class="tool">${e.tool}</span>
            <span class="status muted">${e.status??""}</span>
            ${e.result===null||e.result===void 0?"":L(e.result)}
          </li>`)}
      </ol>
    </section>`}};function qr(r){return r.key!=null?r.key:r.call!=null?`${r.step}.${r.call}`:r.step}var Le="stalwart-access-token",Yr='stalwart-chat[data-signin="fragment"], stalwart-inbox[data-signin="fragment"]';function Me(r){let t=Wr()||k("sessionStorage",Le)||"";return t&&(r.fetcher=zr(r.fetcher,t)),t}function Ut(r){let t=r.querySelectorAll(Yr);for(let e of t)Me(e)}function Wr(){let r=new URLSearchParams(location.hash.slice(1)).get("access_token");return r?(E("sessionStorage",Le,r),history.replaceState(history.state,"",location.pathname+location.search),r):""}function zr(r,t){return(e,s={})=>{let i=new Headers(s.headers);return i.set("Authorization",`Bearer ${t}`),r.call(globalThis,e,{...s,headers:i})}}customElements.get("stalwart-chat")||customElements.define("stalwart-chat",at);customElements.get("stalwart-confirm")||customElements.define("stalwart-confirm",lt);customElements.get("stalwart-decision")||customElements.define("stalwart-decision",ct);customElements.get("stalwart-rollback")||customElements.define("stalwart-rollback",ut);customElements.get("stalwart-trace")||customElements.define("stalwart-trace",ft);customElements.get("stalwart-inbox")||customElements.define("stalwart-inbox",pt);document.readyState==="loading"?document.addEventListener("DOMContentLoaded",()=>Ut(document),{once:!0}):Ut(document);export{at as StalwartChat,lt as StalwartConfirm,ct as StalwartDecision,pt as StalwartInbox,ut as StalwartRollback,ft as StalwartTrace,se as format,tr as setStrings,re as shipped,Me as signInFromFragment,O as strings};
/*! Bundled license information:

@lit/reactive-element/css-tag.js:
  (**
   * @license
   * Copyright 2019 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

@lit/reactive-element/reactive-element.js:
lit-html/lit-html.js:
lit-element/lit-element.js:
lit-html/directive.js:
lit-html/directives/repeat.js:
  (**
   * @license
   * Copyright 2017 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/is-server.js:
  (**
   * @license
   * Copyright 2022 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directives/if-defined.js:
  (**
   * @license
   * Copyright 2018 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)

lit-html/directive-helpers.js:
  (**
   * @license
   * Copyright 2020 Google LLC
   * SPDX-License-Identifier: BSD-3-Clause
   *)
*/
