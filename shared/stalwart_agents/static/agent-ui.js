var F=globalThis,G=F.ShadowRoot&&(F.ShadyCSS===void 0||F.ShadyCSS.nativeShadow)&&"adoptedStyleSheets"in Document.prototype&&"replace"in CSSStyleSheet.prototype,ye=Symbol(),He=new WeakMap,B=class{constructor(e,t,i){if(this._$cssResult$=!0,i!==ye)throw Error("CSSResult is not constructable. Use `unsafeCSS` or `css` instead.");this.cssText=e,this.t=t}get styleSheet(){let e=this.o,t=this.t;if(G&&e===void 0){let i=t!==void 0&&t.length===1;i&&(e=He.get(t)),e===void 0&&((this.o=e=new CSSStyleSheet).replaceSync(this.cssText),i&&He.set(t,e))}return e}toString(){return this.cssText}},Q=r=>new B(typeof r=="string"?r:r+"",void 0,ye),y=(r,...e)=>{let t=r.length===1?r[0]:e.reduce((i,s,n)=>i+(o=>{if(o._$cssResult$===!0)return o.cssText;if(typeof o=="number")return o;throw Error("Value passed to 'css' function must be a 'css' function result: "+o+". Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.")})(s)+r[n+1],r[0]);return new B(t,r,ye)},je=(r,e)=>{if(G)r.adoptedStyleSheets=e.map(t=>t instanceof CSSStyleSheet?t:t.styleSheet);else for(let t of e){let i=document.createElement("style"),s=F.litNonce;s!==void 0&&i.setAttribute("nonce",s),i.textContent=t.cssText,r.appendChild(i)}},be=G?r=>r:r=>r instanceof CSSStyleSheet?(e=>{let t="";for(let i of e.cssRules)t+=i.cssText;return Q(t)})(r):r;var{is:Vt,defineProperty:Jt,getOwnPropertyDescriptor:Ft,getOwnPropertyNames:Gt,getOwnPropertySymbols:Qt,getPrototypeOf:Zt}=Object,Z=globalThis,Le=Z.trustedTypes,Xt=Le?Le.emptyScript:"",er=Z.reactiveElementPolyfillSupport,q=(r,e)=>r,$e={toAttribute(r,e){switch(e){case Boolean:r=r?Xt:null;break;case Object:case Array:r=r==null?r:JSON.stringify(r)}return r},fromAttribute(r,e){let t=r;switch(e){case Boolean:t=r!==null;break;case Number:t=r===null?null:Number(r);break;case Object:case Array:try{t=JSON.parse(r)}catch{t=null}}return t}},Be=(r,e)=>!Vt(r,e),Me={attribute:!0,type:String,converter:$e,reflect:!1,useDefault:!1,hasChanged:Be};Symbol.metadata??=Symbol("metadata"),Z.litPropertyMetadata??=new WeakMap;var k=class extends HTMLElement{static addInitializer(e){this._$Ei(),(this.l??=[]).push(e)}static get observedAttributes(){return this.finalize(),this._$Eh&&[...this._$Eh.keys()]}static createProperty(e,t=Me){if(t.state&&(t.attribute=!1),this._$Ei(),this.prototype.hasOwnProperty(e)&&((t=Object.create(t)).wrapped=!0),this.elementProperties.set(e,t),!t.noAccessor){let i=Symbol(),s=this.getPropertyDescriptor(e,i,t);s!==void 0&&Jt(this.prototype,e,s)}}static getPropertyDescriptor(e,t,i){let{get:s,set:n}=Ft(this.prototype,e)??{get(){return this[t]},set(o){this[t]=o}};return{get:s,set(o){let l=s?.call(this);n?.call(this,o),this.requestUpdate(e,l,i)},configurable:!0,enumerable:!0}}static getPropertyOptions(e){return this.elementProperties.get(e)??Me}static _$Ei(){if(this.hasOwnProperty(q("elementProperties")))return;let e=Zt(this);e.finalize(),e.l!==void 0&&(this.l=[...e.l]),this.elementProperties=new Map(e.elementProperties)}static finalize(){if(this.hasOwnProperty(q("finalized")))return;if(this.finalized=!0,this._$Ei(),this.hasOwnProperty(q("properties"))){let t=this.properties,i=[...Gt(t),...Qt(t)];for(let s of i)this.createProperty(s,t[s])}let e=this[Symbol.metadata];if(e!==null){let t=litPropertyMetadata.get(e);if(t!==void 0)for(let[i,s]of t)this.elementProperties.set(i,s)}this._$Eh=new Map;for(let[t,i]of this.elementProperties){let s=this._$Eu(t,i);s!==void 0&&this._$Eh.set(s,t)}this.elementStyles=this.finalizeStyles(this.styles)}static finalizeStyles(e){let t=[];if(Array.isArray(e)){let i=new Set(e.flat(1/0).reverse());for(let s of i)t.unshift(be(s))}else e!==void 0&&t.push(be(e));return t}static _$Eu(e,t){let i=t.attribute;return i===!1?void 0:typeof i=="string"?i:typeof e=="string"?e.toLowerCase():void 0}constructor(){super(),this._$Ep=void 0,this.isUpdatePending=!1,this.hasUpdated=!1,this._$Em=null,this._$Ev()}_$Ev(){this._$ES=new Promise(e=>this.enableUpdating=e),this._$AL=new Map,this._$E_(),this.requestUpdate(),this.constructor.l?.forEach(e=>e(this))}addController(e){(this._$EO??=new Set).add(e),this.renderRoot!==void 0&&this.isConnected&&e.hostConnected?.()}removeController(e){this._$EO?.delete(e)}_$E_(){let e=new Map,t=this.constructor.elementProperties;for(let i of t.keys())this.hasOwnProperty(i)&&(e.set(i,this[i]),delete this[i]);e.size>0&&(this._$Ep=e)}createRenderRoot(){let e=this.shadowRoot??this.attachShadow(this.constructor.shadowRootOptions);return je(e,this.constructor.elementStyles),e}connectedCallback(){this.renderRoot??=this.createRenderRoot(),this.enableUpdating(!0),this._$EO?.forEach(e=>e.hostConnected?.())}enableUpdating(e){}disconnectedCallback(){this._$EO?.forEach(e=>e.hostDisconnected?.())}attributeChangedCallback(e,t,i){this._$AK(e,i)}_$ET(e,t){let i=this.constructor.elementProperties.get(e),s=this.constructor._$Eu(e,i);if(s!==void 0&&i.reflect===!0){let n=(i.converter?.toAttribute!==void 0?i.converter:$e).toAttribute(t,i.type);this._$Em=e,n==null?this.removeAttribute(s):this.setAttribute(s,n),this._$Em=null}}_$AK(e,t){let i=this.constructor,s=i._$Eh.get(e);if(s!==void 0&&this._$Em!==s){let n=i.getPropertyOptions(s),o=typeof n.converter=="function"?{fromAttribute:n.converter}:n.converter?.fromAttribute!==void 0?n.converter:$e;this._$Em=s;let l=o.fromAttribute(t,n.type);this[s]=l??this._$Ej?.get(s)??l,this._$Em=null}}requestUpdate(e,t,i,s=!1,n){if(e!==void 0){let o=this.constructor;if(s===!1&&(n=this[e]),i??=o.getPropertyOptions(e),!((i.hasChanged??Be)(n,t)||i.useDefault&&i.reflect&&n===this._$Ej?.get(e)&&!this.hasAttribute(o._$Eu(e,i))))return;this.C(e,t,i)}this.isUpdatePending===!1&&(this._$ES=this._$EP())}C(e,t,{useDefault:i,reflect:s,wrapped:n},o){i&&!(this._$Ej??=new Map).has(e)&&(this._$Ej.set(e,o??t??this[e]),n!==!0||o!==void 0)||(this._$AL.has(e)||(this.hasUpdated||i||(t=void 0),this._$AL.set(e,t)),s===!0&&this._$Em!==e&&(this._$Eq??=new Set).add(e))}async _$EP(){this.isUpdatePending=!0;try{await this._$ES}catch(t){Promise.reject(t)}let e=this.scheduleUpdate();return e!=null&&await e,!this.isUpdatePending}scheduleUpdate(){return this.performUpdate()}performUpdate(){if(!this.isUpdatePending)return;if(!this.hasUpdated){if(this.renderRoot??=this.createRenderRoot(),this._$Ep){for(let[s,n]of this._$Ep)this[s]=n;this._$Ep=void 0}let i=this.constructor.elementProperties;if(i.size>0)for(let[s,n]of i){let{wrapped:o}=n,l=this[s];o!==!0||this._$AL.has(s)||l===void 0||this.C(s,void 0,n,l)}}let e=!1,t=this._$AL;try{e=this.shouldUpdate(t),e?(this.willUpdate(t),this._$EO?.forEach(i=>i.hostUpdate?.()),this.update(t)):this._$EM()}catch(i){throw e=!1,this._$EM(),i}e&&this._$AE(t)}willUpdate(e){}_$AE(e){this._$EO?.forEach(t=>t.hostUpdated?.()),this.hasUpdated||(this.hasUpdated=!0,this.firstUpdated(e)),this.updated(e)}_$EM(){this._$AL=new Map,this.isUpdatePending=!1}get updateComplete(){return this.getUpdateComplete()}getUpdateComplete(){return this._$ES}shouldUpdate(e){return!0}update(e){this._$Eq&&=this._$Eq.forEach(t=>this._$ET(t,this[t])),this._$EM()}updated(e){}firstUpdated(e){}};k.elementStyles=[],k.shadowRootOptions={mode:"open"},k[q("elementProperties")]=new Map,k[q("finalized")]=new Map,er?.({ReactiveElement:k}),(Z.reactiveElementVersions??=[]).push("2.1.2");var ve=globalThis,qe=r=>r,X=ve.trustedTypes,Ye=X?X.createPolicy("lit-html",{createHTML:r=>r}):void 0,xe="$lit$",A=`lit$${Math.random().toFixed(9).slice(2)}$`,ke="?"+A,tr=`<${ke}>`,P=document,W=()=>P.createComment(""),z=r=>r===null||typeof r!="object"&&typeof r!="function",Ae=Array.isArray,Fe=r=>Ae(r)||typeof r?.[Symbol.iterator]=="function",_e=`[ 	
\f\r]`,Y=/<(?:(!--|\/[^a-zA-Z])|(\/?[a-zA-Z][^>\s]*)|(\/?$))/g,We=/-->/g,ze=/>/g,R=RegExp(`>|${_e}(?:([^\\s"'>=/]+)(${_e}*=${_e}*(?:[^ 	
\f\r"'\`<>=]|("|')|))|$)`,"g"),Ke=/'/g,Ve=/"/g,Ge=/^(?:script|style|textarea|title)$/i,Se=r=>(e,...t)=>({_$litType$:r,strings:e,values:t}),d=Se(1),ni=Se(2),oi=Se(3),S=Symbol.for("lit-noChange"),g=Symbol.for("lit-nothing"),Je=new WeakMap,U=P.createTreeWalker(P,129);function Qe(r,e){if(!Ae(r)||!r.hasOwnProperty("raw"))throw Error("invalid template strings array");return Ye!==void 0?Ye.createHTML(e):e}var Ze=(r,e)=>{let t=r.length-1,i=[],s,n=e===2?"<svg>":e===3?"<math>":"",o=Y;for(let l=0;l<t;l++){let a=r[l],p,u,h=-1,m=0;for(;m<a.length&&(o.lastIndex=m,u=o.exec(a),u!==null);)m=o.lastIndex,o===Y?u[1]==="!--"?o=We:u[1]!==void 0?o=ze:u[2]!==void 0?(Ge.test(u[2])&&(s=RegExp("</"+u[2],"g")),o=R):u[3]!==void 0&&(o=R):o===R?u[0]===">"?(o=s??Y,h=-1):u[1]===void 0?h=-2:(h=o.lastIndex-u[2].length,p=u[1],o=u[3]===void 0?R:u[3]==='"'?Ve:Ke):o===Ve||o===Ke?o=R:o===We||o===ze?o=Y:(o=R,s=void 0);let f=o===R&&r[l+1].startsWith("/>")?" ":"";n+=o===Y?a+tr:h>=0?(i.push(p),a.slice(0,h)+xe+a.slice(h)+A+f):a+A+(h===-2?l:f)}return[Qe(r,n+(r[t]||"<?>")+(e===2?"</svg>":e===3?"</math>":"")),i]},K=class r{constructor({strings:e,_$litType$:t},i){let s;this.parts=[];let n=0,o=0,l=e.length-1,a=this.parts,[p,u]=Ze(e,t);if(this.el=r.createElement(p,i),U.currentNode=this.el.content,t===2||t===3){let h=this.el.content.firstChild;h.replaceWith(...h.childNodes)}for(;(s=U.nextNode())!==null&&a.length<l;){if(s.nodeType===1){if(s.hasAttributes())for(let h of s.getAttributeNames())if(h.endsWith(xe)){let m=u[o++],f=s.getAttribute(h).split(A),w=/([.?@])?(.*)/.exec(m);a.push({type:1,index:n,name:w[2],strings:f,ctor:w[1]==="."?te:w[1]==="?"?re:w[1]==="@"?ie:I}),s.removeAttribute(h)}else h.startsWith(A)&&(a.push({type:6,index:n}),s.removeAttribute(h));if(Ge.test(s.tagName)){let h=s.textContent.split(A),m=h.length-1;if(m>0){s.textContent=X?X.emptyScript:"";for(let f=0;f<m;f++)s.append(h[f],W()),U.nextNode(),a.push({type:2,index:++n});s.append(h[m],W())}}}else if(s.nodeType===8)if(s.data===ke)a.push({type:2,index:n});else{let h=-1;for(;(h=s.data.indexOf(A,h+1))!==-1;)a.push({type:7,index:n}),h+=A.length-1}n++}}static createElement(e,t){let i=P.createElement("template");return i.innerHTML=e,i}};function D(r,e,t=r,i){if(e===S)return e;let s=i!==void 0?t._$Co?.[i]:t._$Cl,n=z(e)?void 0:e._$litDirective$;return s?.constructor!==n&&(s?._$AO?.(!1),n===void 0?s=void 0:(s=new n(r),s._$AT(r,t,i)),i!==void 0?(t._$Co??=[])[i]=s:t._$Cl=s),s!==void 0&&(e=D(r,s._$AS(r,e.values),s,i)),e}var ee=class{constructor(e,t){this._$AV=[],this._$AN=void 0,this._$AD=e,this._$AM=t}get parentNode(){return this._$AM.parentNode}get _$AU(){return this._$AM._$AU}u(e){let{el:{content:t},parts:i}=this._$AD,s=(e?.creationScope??P).importNode(t,!0);U.currentNode=s;let n=U.nextNode(),o=0,l=0,a=i[0];for(;a!==void 0;){if(o===a.index){let p;a.type===2?p=new H(n,n.nextSibling,this,e):a.type===1?p=new a.ctor(n,a.name,a.strings,this,e):a.type===6&&(p=new se(n,this,e)),this._$AV.push(p),a=i[++l]}o!==a?.index&&(n=U.nextNode(),o++)}return U.currentNode=P,s}p(e){let t=0;for(let i of this._$AV)i!==void 0&&(i.strings!==void 0?(i._$AI(e,i,t),t+=i.strings.length-2):i._$AI(e[t])),t++}},H=class r{get _$AU(){return this._$AM?._$AU??this._$Cv}constructor(e,t,i,s){this.type=2,this._$AH=g,this._$AN=void 0,this._$AA=e,this._$AB=t,this._$AM=i,this.options=s,this._$Cv=s?.isConnected??!0}get parentNode(){let e=this._$AA.parentNode,t=this._$AM;return t!==void 0&&e?.nodeType===11&&(e=t.parentNode),e}get startNode(){return this._$AA}get endNode(){return this._$AB}_$AI(e,t=this){e=D(this,e,t),z(e)?e===g||e==null||e===""?(this._$AH!==g&&this._$AR(),this._$AH=g):e!==this._$AH&&e!==S&&this._(e):e._$litType$!==void 0?this.$(e):e.nodeType!==void 0?this.T(e):Fe(e)?this.k(e):this._(e)}O(e){return this._$AA.parentNode.insertBefore(e,this._$AB)}T(e){this._$AH!==e&&(this._$AR(),this._$AH=this.O(e))}_(e){this._$AH!==g&&z(this._$AH)?this._$AA.nextSibling.data=e:this.T(P.createTextNode(e)),this._$AH=e}$(e){let{values:t,_$litType$:i}=e,s=typeof i=="number"?this._$AC(e):(i.el===void 0&&(i.el=K.createElement(Qe(i.h,i.h[0]),this.options)),i);if(this._$AH?._$AD===s)this._$AH.p(t);else{let n=new ee(s,this),o=n.u(this.options);n.p(t),this.T(o),this._$AH=n}}_$AC(e){let t=Je.get(e.strings);return t===void 0&&Je.set(e.strings,t=new K(e)),t}k(e){Ae(this._$AH)||(this._$AH=[],this._$AR());let t=this._$AH,i,s=0;for(let n of e)s===t.length?t.push(i=new r(this.O(W()),this.O(W()),this,this.options)):i=t[s],i._$AI(n),s++;s<t.length&&(this._$AR(i&&i._$AB.nextSibling,s),t.length=s)}_$AR(e=this._$AA.nextSibling,t){for(this._$AP?.(!1,!0,t);e!==this._$AB;){let i=qe(e).nextSibling;qe(e).remove(),e=i}}setConnected(e){this._$AM===void 0&&(this._$Cv=e,this._$AP?.(e))}},I=class{get tagName(){return this.element.tagName}get _$AU(){return this._$AM._$AU}constructor(e,t,i,s,n){this.type=1,this._$AH=g,this._$AN=void 0,this.element=e,this.name=t,this._$AM=s,this.options=n,i.length>2||i[0]!==""||i[1]!==""?(this._$AH=Array(i.length-1).fill(new String),this.strings=i):this._$AH=g}_$AI(e,t=this,i,s){let n=this.strings,o=!1;if(n===void 0)e=D(this,e,t,0),o=!z(e)||e!==this._$AH&&e!==S,o&&(this._$AH=e);else{let l=e,a,p;for(e=n[0],a=0;a<n.length-1;a++)p=D(this,l[i+a],t,a),p===S&&(p=this._$AH[a]),o||=!z(p)||p!==this._$AH[a],p===g?e=g:e!==g&&(e+=(p??"")+n[a+1]),this._$AH[a]=p}o&&!s&&this.j(e)}j(e){e===g?this.element.removeAttribute(this.name):this.element.setAttribute(this.name,e??"")}},te=class extends I{constructor(){super(...arguments),this.type=3}j(e){this.element[this.name]=e===g?void 0:e}},re=class extends I{constructor(){super(...arguments),this.type=4}j(e){this.element.toggleAttribute(this.name,!!e&&e!==g)}},ie=class extends I{constructor(e,t,i,s,n){super(e,t,i,s,n),this.type=5}_$AI(e,t=this){if((e=D(this,e,t,0)??g)===S)return;let i=this._$AH,s=e===g&&i!==g||e.capture!==i.capture||e.once!==i.once||e.passive!==i.passive,n=e!==g&&(i===g||s);s&&this.element.removeEventListener(this.name,this,i),n&&this.element.addEventListener(this.name,this,e),this._$AH=e}handleEvent(e){typeof this._$AH=="function"?this._$AH.call(this.options?.host??this.element,e):this._$AH.handleEvent(e)}},se=class{constructor(e,t,i){this.element=e,this.type=6,this._$AN=void 0,this._$AM=t,this.options=i}get _$AU(){return this._$AM._$AU}_$AI(e){D(this,e)}},Xe={M:xe,P:A,A:ke,C:1,L:Ze,R:ee,D:Fe,V:D,I:H,H:I,N:re,U:ie,B:te,F:se},rr=ve.litHtmlPolyfillSupport;rr?.(K,H),(ve.litHtmlVersions??=[]).push("3.3.3");var et=(r,e,t)=>{let i=t?.renderBefore??e,s=i._$litPart$;if(s===void 0){let n=t?.renderBefore??null;i._$litPart$=s=new H(e.insertBefore(W(),n),n,void 0,t??{})}return s._$AI(r),s};var Ee=globalThis,C=class extends k{constructor(){super(...arguments),this.renderOptions={host:this},this._$Do=void 0}createRenderRoot(){let e=super.createRenderRoot();return this.renderOptions.renderBefore??=e.firstChild,e}update(e){let t=this.render();this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),super.update(e),this._$Do=et(t,this.renderRoot,this.renderOptions)}connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}render(){return S}};C._$litElement$=!0,C.finalized=!0,Ee.litElementHydrateSupport?.({LitElement:C});var ir=Ee.litElementPolyfillSupport;ir?.({LitElement:C});(Ee.litElementVersions??=[]).push("4.2.2");var V=r=>r??g;function E(r,e){try{return globalThis[r]?.getItem(e)??null}catch{return null}}function T(r,e,t){try{globalThis[r]?.setItem(e,t)}catch{}}var tt="Stalwart-Session",rt="stalwart-session",sr="Stalwart-Stream-Ticket",$=class extends Error{constructor(e,t){super(t?.message||`HTTP ${e}`),this.status=e,this.code=t?.error??"",this.body=t}},j=class{constructor(e,t){this.base=String(e??"").replace(/\/+$/,""),this.fetcher=t,this.tickets=new Map}url(e,t=""){return`${this.base}/threads/${encodeURIComponent(e)}${t}`}ticket(e){return this.tickets.get(e)??""}send(e,t){return this.request("POST",e,"/messages",{text:t})}config(){return this.fetchJSON("GET",`${this.base}/config.json`)}interrupts(e){return this.request("GET",e,"/interrupts")}inbox(e={}){let t=Object.entries(e).filter(([,s])=>s!=null&&s!==""),i=new URLSearchParams(t.map(([s,n])=>[s,String(n)])).toString();return this.fetchJSON("GET",`${this.base}/interrupts${i?`?${i}`:""}`)}resume(e,t){return this.request("POST",e,"/resume",t)}feedback(e,t,i){return this.request("POST",e,"/feedback",{message:t,thumb:i})}async request(e,t,i,s){return this.fetchJSON(e,this.url(t,i),s,t)}async fetchJSON(e,t,i,s){let n={Accept:"application/json"},o=E("sessionStorage",rt);o&&(n[tt]=o),i!==void 0&&(n["Content-Type"]="application/json");let l=await this.fetcher.call(globalThis,t,{method:e,headers:n,body:i===void 0?void 0:JSON.stringify(i),credentials:"same-origin"}),a=l.headers?.get(tt);a&&T("sessionStorage",rt,a);let p=l.headers?.get(sr);p&&s!==void 0&&this.tickets.set(s,p);let u=nr(await l.text());if(!l.ok)throw new $(l.status,u);return u}};function nr(r){try{return r?JSON.parse(r):null}catch{return null}}var it=Object.freeze({conversation:"Conversation",placeholder:"Write a message",send:"Send",sending:"Sending\u2026",waiting:"Waiting for your decision",confirmTitle:"Confirm {tool}?",argumentsTitle:"What it will use",origin_typed:"you typed it",origin_reply:"you answered it",origin_context:"from your account",origin_computed:"calculated",origin_model:"the assistant wrote it",origin_result:"from an earlier step",origin_agent:"from another assistant",reasonsTitle:"Why this needs you",irreversible:"Nothing can undo this step once it runs.",approve:"Approve",skip:"Skip this step",cancelAll:"Cancel everything",refused:"Not done",rule:"Rule",showRule:"Which rule?",rollbackTitle:"Undoing what this run did",undone:"Undone",notUndoable:"Could not be undone",stuck:"Undoing {tool} failed. What should happen?",retry:"Try again",doneByHand:"I undid it myself",abandon:"Leave it",unknownTitle:"Did {tool} take effect?",happened:"Yes, it happened",didNotHappen:"No, it did not",delegateTitle:"I couldn't work that out. Shall I pass it to the assistant?",delegateApprove:"Yes, pass it on",decline:"No",reconnecting:"Reconnecting\u2026",traceTitle:"What happened",step:"Step {step}",error:"Something went wrong: {message}",thumbUp:"Helpful",thumbDown:"Not helpful",thumbsNotice:"A rated message is kept to improve the assistant, and nothing else of the conversation.",sources:"Sources",inboxTitle:"Waiting for a decision",inboxEmpty:"Nothing is waiting for a decision.",refresh:"Refresh",loadMore:"Load more",loading:"Loading\u2026",threadTitle:"Thread {thread}",lastWords:"Last words",approvalsNone:"Needs {needed} approvals, none given yet",approvalsGiven:"Approved by {names} ({given} of {needed})",approvalCounted:"Approval counted: {given} of {needed}",answered:"Answered thread {thread}",origin_from:"from {tool}",showSource:"What it came from",sourceTooLarge:"Too large to show here.",approveIrreversible:"Approve \u2014 cannot be undone",answerLabel:"Your answer",reason_write:"It changes something outside this conversation.",reason_argument_origin:"You did not give {arg} yourself: check it.",reason_tainted_call:"It comes after {tool}, whose answer is not trusted.",reason_rule:"A rule asks for a person: {rule}.",reason_missing:"It needs {arg}, which was not given.",reason_unread:"The agent could not read that message.",reason_language:"The agent reads {language} only.",reason_undo_failed:"Undoing it failed: {error}.",reason_outcome_unknown:"It may or may not have happened: {cause}.",resultsTitle:"Results",recordApprove:"You approved: {title}",recordApproval:"You approved, and more approvals are needed: {title}",recordSkip:"You skipped: {title}",recordCancelAll:"Cancelled: {title}",recordAnswer:"You answered {value}: {title}",recordHappened:"You said it happened: {title}",recordDidNotHappen:"You said it did not happen: {title}",recordRetry:"You asked to try undoing again: {title}",recordDoneByHand:"You undid it yourself: {title}",recordAbandon:"You left it: {title}",recordDelegate:"You passed it on to the assistant",recordDecline:"You did not pass it on",recordOther:"You answered {decision}: {title}",recordBy:"by {who}",examplesTitle:"Try",origin_typed_by:"{who} typed it",origin_reply_by:"{who} answered it",origin_context_of:"from {who}\u2019s account",origin_typed_them:"the person who asked typed it",origin_reply_them:"the person who asked answered it",origin_context_them:"from the account of the person who asked",decidesApprover:"Needs an approver from {who}",waitsFor:"Waits for {who} to decide",askedBy:"Asked by {who}, {when}",askedByYou:"You asked, {when}",askedAt:"Asked {when}",reason_rule_failed:"The approver rule {rule} could not be checked; the team running this service has been told.",recordApproveBy:"{who} approved: {title}",recordApprovalBy:"{who} approved, and more approvals are needed: {title}",recordSkipBy:"{who} skipped: {title}",recordCancelAllBy:"{who} cancelled: {title}",recordAnswerBy:"{who} answered {value}: {title}",recordHappenedBy:"{who} said it happened: {title}",recordDidNotHappenBy:"{who} said it did not happen: {title}",recordRetryBy:"{who} asked to try undoing again: {title}",recordDoneByHandBy:"{who} undid it by hand: {title}",recordAbandonBy:"{who} left it: {title}",recordDelegateBy:"{who} passed it on to the assistant",recordDeclineBy:"{who} did not pass it on",recordOtherBy:"{who} answered {decision}: {title}",outcomeTitle:"What happened",outcome_done:"{title}: done",outcome_failed:"{title}: failed",outcome_unknown:"{title}: nobody knows yet whether it happened",outcome_started:"{title}: running",outcome_skipped:"{title}: skipped",outcome_cancelled:"{title}: cancelled",outcomeWaits:"It now waits for another answer.",outcomeCounted:"Your approval is counted; it waits for another person\u2019s before it runs.",linkExpires:"This link answers once, until {when}.",linkSignIn:"To answer, sign in: it waits in your inbox.",linkTaken:"Answer taken",linkUsed:"Already answered",linkUsedBy:"{who} already answered this: {decision}, {when}.",linkUsedWhat:"It was answered: {decision}, {when}.",linkUsedAlready:"This was already answered, and this link can no longer be used.",linkExpired:"This link has expired",linkBroken:"This link does not work",linkBrokenText:"It is not a link this service made, or it was changed.",linkSignInTitle:"Sign in to answer",linkNotTaken:"This answer was not taken",linkFailed:"The service failed on this link; its log has the details.",inboxAnswered:"You answered {decision}: {title}",filterTool:"Tool",filterKind:"Kind",allTools:"All tools",allKinds:"All kinds",kind_confirm:"Calls to approve",kind_ask:"Questions to answer",kind_outcome_unknown:"Calls that may not have happened",kind_saga_stuck:"Undos that failed",kind_delegate:"Turns to pass on",deadlineSkip:"Answer by {when}; after that it is skipped.",deadlineCancel:"Answer by {when}; after that the whole request is cancelled.",escalatesAt:"If nobody answers by {when}, {who} will be asked too.",overdueAt:"If nobody answers by {when}, it is sent again as overdue.",escalated:"Nobody has answered yet, so {who} may answer now too.",escalatedOverdue:"Overdue: nobody has answered in time.",expiredSkip:"Nobody answered by {when}, so it was skipped.",expiredCancel:"Nobody answered by {when}, so the whole request was cancelled.",outcome_expired:"{title}: not done, nobody answered in time",recordExpired:"Nobody answered in time, so it was not done: {title}",requestExpired:"This request has expired",linkNothingDone:"Nothing was done with this link.",origin_edited:"changed before it was approved",origin_edited_by:"changed by {who}",approveEdited:"Approve with changes",approveEditedIrreversible:"Approve with changes \u2014 cannot be undone",editAsked:"asked {shown}",editReset:"Undo my changes",editNumber:"Enter a number for {label} to approve.",editInteger:"Enter a whole number for {label} to approve.",editChange:"{to} (asked {from})",recordApproveEdited:"You approved {changes}: {title}",recordApproveEditedBy:"{who} approved {changes}: {title}",recordEdited:"You changed {changes}, so it is asked again: {title}",recordEditedBy:"{who} changed {changes}, so it is asked again: {title}",batchSelect:"Select",batchSelectCall:"Select {title}",batchSelected:"{count} selected",batchOneTool:"Only calls to {tool} can join this selection.",batchApprove:"Approve {count}",batchSkip:"Skip {count}",batchClear:"Clear selection",batchSure_approve:"Approve these {count} calls?",batchSure_skip:"Skip these {count} calls?",batchYes_approve:"Yes, approve {count}",batchYes_skip:"Yes, skip {count}",batchBack:"Back",batchTotal:"{label} in total: {sum}",batchAnswered:"You answered {decision} for {done} of {count}",batchTaken:"{title}: answered",batchStale:"{title}: someone else answered first",batchNotYours:"{title}: not yours to answer",batchFailed:"{title}: not done, {message}"}),O={...it},Te=new Set;function or(r){for(let[e,t]of Object.entries(r??{})){if(typeof t!="string")throw new TypeError(`setStrings: the string for "${e}" is not a string`);O[e]=t}for(let e of Te)e.requestUpdate()}function st(r,e={}){return r.replace(/\{(\w+)\}/g,(t,i)=>e[i]==null?t:String(e[i]))}function c(r,e){return st(Object.hasOwn(O,r)?O[r]:r,e)}var ne=class{constructor(e){this.host=e,e.addController(this)}hostConnected(){Te.add(this.host)}hostDisconnected(){Te.delete(this.host)}};var b=class extends C{static get properties(){return{theme:{type:String,reflect:!0}}}constructor(){super(),new ne(this)}};var ar={approve:"recordApprove",skip:"recordSkip",cancel_all:"recordCancelAll",answer:"recordAnswer",happened:"recordHappened",did_not_happen:"recordDidNotHappen",retry:"recordRetry",done_by_hand:"recordDoneByHand",abandon:"recordAbandon",decline:"recordDecline"},nt="stalwart:none";function oe(r){return!r||r.outcome==="refused"||!r.decision?null:{pause:String(r.pause??""),kind:String(r.kind??""),decision:String(r.decision),outcome:String(r.outcome??"taken"),title:String(r.title||r.tool||""),value:r.value,who:lr(r),mine:cr(r),at:dr(r.at)}}function ot(r){if(r.decision==="expired")return c("recordExpired",{title:r.title});let t=r.kind==="delegate"&&r.decision==="approve"?"recordDelegate":r.outcome==="approval"?"recordApproval":ar[r.decision]??"recordOther",i=typeof r.value=="string"?r.value:JSON.stringify(r.value),s=!(r.mine??!r.who)&&r.who;return c(s?`${t}By`:t,{title:r.title,value:i,decision:r.decision,who:r.who})}function ae(r){let e=new Date(r);return Number.isNaN(e.getTime())?r:e.toLocaleString(void 0,{dateStyle:"medium",timeStyle:"short"})}function lr(r){let e=r.principal;return e?.iss===nt?"":String(r.name||r.by||e?.sub||"")}function cr(r){return typeof r.by_owner=="boolean"?r.by_owner:!r.principal||r.principal.iss===nt}function dr(r){return typeof r=="number"?new Date(r*1e3).toISOString():typeof r=="string"&&r?r:new Date().toISOString()}var at=120;function hr(r){let e=lt(r);return e.length>at?`${e.slice(0,at-1)}\u2026`:e}function lt(r){return r==null?"":typeof r=="string"?r:Array.isArray(r)?r.map(e=>e&&typeof e=="object"?lt(e):String(e)).join("; "):typeof r=="object"?Object.entries(r).filter(([,e])=>e===null||typeof e!="object").map(([e,t])=>`${e}: ${t}`).join(", "):String(r)}function L(r,e=""){return d`<details class="result">
    <summary>${e?d`<span class="label">${e}</span> `:""}<span class="short">${hr(r)||JSON.stringify(r)}</span></summary>
    <pre class="whole">${JSON.stringify(r,null,2)}</pre>
  </details>`}function J(r){return!!r&&typeof r=="object"&&typeof r.key=="string"}function _(r){if(!J(r))return"";let e={...r.values??{}};return typeof e.when=="string"&&(e.when=ae(e.when)),c(r.key,e)}var pr=["turn","step","pause","answer","run","rollback","recovered"],ct=1e3,ur=3e4,fr=2,dt=r=>`stalwart-last-event-id:${r}`,le=class{constructor(e){this.options=e,this.delay=ct,this.source=null,this.timer=void 0,this.failures=0,this.stopped=!1}get last(){return E("sessionStorage",dt(this.options.thread))??""}start(){let{url:e,open:t}=this.options,i=this.options.ticket(),s=this.last,n=new URLSearchParams;i&&n.set("ticket",i),s&&n.set("last_event_id",s);let o=n.toString(),l=t(o?`${e}?${o}`:e);this.source=l,l.addEventListener("open",()=>this.opened()),l.addEventListener("error",()=>this.failed(l));for(let a of pr)l.addEventListener(a,p=>this.received(a,p))}stop(){this.stopped=!0,clearTimeout(this.timer),this.source?.close(),this.source=null}opened(){this.delay=ct,this.failures=0,this.options.onReconnecting(!1),this.options.onOpen()}failed(e){this.stopped||e!==this.source||(this.failures+=1,e.readyState===fr?(e.close(),this.options.onReconnecting(!0),this.retry()):this.failures>1&&this.options.onReconnecting(!0))}retry(){this.timer=setTimeout(async()=>{try{await this.options.renew()}catch{this.stopped||this.retry();return}this.stopped||this.start()},this.delay),this.delay=Math.min(this.delay*2,ur)}received(e,t){let i=t.lastEventId??"",s=this.last;if(/^\d+$/.test(i)&&/^\d+$/.test(s)&&Number(i)<=Number(s))return;i&&T("sessionStorage",dt(this.options.thread),i);let n=null;try{n=JSON.parse(t.data)}catch{return}this.options.onEvent(e,n,i)}};var mr=Object.freeze({"--stalwart-bg":"#ffffff","--stalwart-fg":"#1a1a1a","--stalwart-muted":"#595959","--stalwart-line":"#d0d0d0","--stalwart-accent":"#0b57d0","--stalwart-accent-fg":"#ffffff","--stalwart-warn":"#8a4b00","--stalwart-bad":"#b3261e","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"}),ht=Object.freeze({"--stalwart-bg":"#121212","--stalwart-fg":"#f1f1f1","--stalwart-muted":"#bdbdbd","--stalwart-line":"#3c3c3c","--stalwart-accent":"#8ab4f8","--stalwart-accent-fg":"#0b0b0b","--stalwart-warn":"#ffb74d","--stalwart-bad":"#f28b82","--stalwart-radius":"8px","--stalwart-gap":"12px","--stalwart-font":"system-ui, sans-serif"});function Ce(r,e){let t=Object.entries(r).map(([i,s])=>`${i.replace("--stalwart-","--_")}: var(${i}, ${s});`);return`color-scheme: ${e}; ${t.join(" ")}`}var pt=`
:host { ${Ce(mr,"light")} }
@media (prefers-color-scheme: dark) { :host(:not([theme="light"])) { ${Ce(ht,"dark")} } }
:host([theme="dark"]) { ${Ce(ht,"dark")} }
`;var v=[Q(pt),y`
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
  `];var ut=[v,y`
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
  `];var ft="stalwart-thread",mt=200,gr=Object.fromEntries(["entries","waiting","trace","text","sending","deciding","reconnecting","error","about"].map(r=>[r,{state:!0}])),wr=new Set(["pause","answer","run","rollback","recovered"]),ce=class extends b{static get styles(){return ut}static get properties(){return{base:{type:String},thread:{type:String},thumbs:{type:Boolean},eventSource:{attribute:!1},fetcher:{attribute:!1},...gr}}constructor(){super(),this.base="",this.thread="",this.thumbs=!1,this.eventSource=e=>new EventSource(e),this.fetcher=globalThis.fetch,Object.assign(this,{entries:[],waiting:[],trace:[],text:"",sending:!1,deciding:0,reconnecting:!1,error:"",about:null}),this.link=null,this.addEventListener("stalwart-decision",e=>this.decide(e))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.connect()}disconnectedCallback(){super.disconnectedCallback(),this.disconnect()}willUpdate(e){["base","thread","eventSource","fetcher"].some(t=>e.has(t))&&this.connect()}updated(e){(e.has("entries")||e.has("trace"))&&this.keepView(),(e.has("entries")||e.has("waiting"))&&this.scrollLog()}render(){let e=V(this.theme||void 0),t=this.sources(),i=this.waiting.length>0;return d`<slot name="header"></slot>
      <div part="log" role="log" aria-live="polite" aria-label=${c("conversation")} tabindex="0">
        ${this.entries.length||i?"":this.renderAbout()}
        ${this.entries.map(s=>this.renderEntry(s,e))}
        ${this.waiting.map(s=>d`<stalwart-confirm .interrupt=${s} theme=${e}></stalwart-confirm>`)}
      </div>
      <section part="citations" aria-label=${c("sources")} ?hidden=${!t.length}>
        <ul part="sources">
          ${t.map(s=>d`<li>${vr(s)}</li>`)}
        </ul>
      </section>
      <details part="steps">
        <summary>${c("traceTitle")}</summary>
        <stalwart-trace .events=${this.trace} theme=${e}></stalwart-trace>
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
          ?disabled=${i}
          @input=${this.typed}
          @keydown=${this.keydown}
        ></textarea>
        <button type="submit" ?disabled=${this.sending||i}>${c("send")}</button>
      </form>
      <p part="thumbs-notice" class="muted" ?hidden=${!this.thumbs}>${c("thumbsNotice")}</p>
      <slot name="footer"></slot>`}renderEntry(e,t){switch(e.kind){case"turn":return d`<div class="entry turn" data-entry=${e.n} tabindex="-1"><p class="text">${e.text}</p></div>`;case"reply":return d`<div class="entry reply" data-entry=${e.n} data-id=${V(e.id)} tabindex="-1">
          ${e.text?d`<p class="text">${e.text}</p>`:""} ${$r(e.results??[])}
          ${this.thumbs&&e.id?this.renderThumbs(e):""}
        </div>`;case"record":return _r(e);case"refusal":return d`<stalwart-decision
          class="entry"
          data-entry=${e.n}
          tabindex="-1"
          rule=${e.rule??""}
          sentence=${e.sentence??""}
          theme=${t}
        ></stalwart-decision>`;default:return d`<stalwart-rollback class="entry" data-entry=${e.n} tabindex="-1" .report=${e.report} theme=${t}></stalwart-rollback>`}}renderAbout(){let e=this.about;if(!e?.agent)return"";let t=Array.isArray(e.examples)?e.examples.filter(i=>typeof i=="string"):[];return d`<section class="about" aria-labelledby="agent">
      <h2 id="agent">${e.agent}</h2>
      ${e.description?d`<p class="description">${e.description}</p>`:""}
      ${t.length?d`<h3 id="examples">${c("examplesTitle")}</h3>
            <ul class="examples" aria-labelledby="examples">
              ${t.map(i=>d`<li><button type="button" class="quiet example" @click=${()=>this.suggest(i)}>${i}</button></li>`)}
            </ul>`:""}
    </section>`}async suggest(e){this.text=e,await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus()}renderThumbs(e){return d`<div part="thumbs">
      <button type="button" class="quiet" data-thumb="up" aria-pressed=${e.thumb==="up"?"true":"false"} @click=${()=>this.rate(e,"up")}>${c("thumbUp")}</button>
      <button type="button" class="quiet" data-thumb="down" aria-pressed=${e.thumb==="down"?"true":"false"} @click=${()=>this.rate(e,"down")}>${c("thumbDown")}</button>
    </div>`}statusText(){if(this.error)return c("error",{message:this.error});if(this.sending||this.deciding)return c("sending");if(this.reconnecting)return c("reconnecting");if(!this.waiting.length)return"";let e=this.waiting.map(t=>_(t.card?.waits_for));return e.every(Boolean)?e[0]:c("waiting")}sources(){let e=[...this.entries].reverse().find(t=>t.kind==="reply");return Array.isArray(e?.sources)?e.sources:[]}connect(){if(this.disconnect(),!this.isConnected)return;let e=this.thread||kr(),t=new j(this.base,this.fetcher),i={thread:e,client:t,stream:null,epoch:0,reading:!1,again:!1};this.link=i;let s=xr(e);this.entries=s.entries,this.trace=s.trace,this.waiting=[],this.error="",this.reconnecting=!1,this.sending=!1,this.deciding=0,this.refresh(),this.describe(i)}async describe(e){try{let t=await e.client.config();e===this.link&&(this.about=t&&typeof t=="object"?t:null)}catch{e===this.link&&(this.about=null)}}follow(e){if(e!==this.link||e.stream)return;let{client:t,thread:i}=e;e.stream=new le({url:t.url(i,"/stream"),thread:i,ticket:()=>t.ticket(i),renew:()=>t.interrupts(i),open:s=>this.eventSource(s),onEvent:(s,n,o)=>e===this.link&&this.streamed(s,n,o),onOpen:()=>e===this.link&&this.refresh(),onReconnecting:s=>{e===this.link&&(this.reconnecting=s)}});try{e.stream.start()}catch(s){this.fail(s)}}disconnect(){this.link?.stream?.stop(),this.link=null}streamed(e,t,i){e==="step"&&(this.trace=[...this.trace,t].slice(-mt)),e==="answer"&&this.recorded(t,i),wr.has(e)&&this.refresh()}recorded(e,t){let i=oe(e);if(!i||t&&this.entries.some(n=>n.kind==="record"&&n.event===t))return;let s=this.entries.find(n=>n.kind==="record"&&!n.event&&n.record?.pause===i.pause&&n.record?.decision===i.decision);s?this.entries=this.entries.map(n=>n===s?{...n,record:i,event:t||"seen"}:n):this.record([{kind:"record",record:i,event:t||"seen"}])}async refresh(){let e=this.link;if(e){if(e.reading||this.deciding){e.again=!0;return}e.reading=!0;try{do{e.again=!1;let t=e.epoch;try{let i=await e.client.interrupts(e.thread);e===this.link&&t===e.epoch&&(this.waiting=Oe(this.waiting,i?.waiting)),this.follow(e)}catch(i){e===this.link&&!(i instanceof $&&i.code==="not_found")&&this.fail(i)}}while(e.again&&e===this.link&&!this.deciding)}finally{e.reading=!1}}}submit(e){e.preventDefault(),this.send()}keydown(e){e.key==="Enter"&&!e.shiftKey&&!e.isComposing&&(e.preventDefault(),this.send())}typed(e){this.text=e.target.value}async send(){let e=this.link,t=this.text.trim();if(!e||!t||this.sending||this.waiting.length)return;let i=this.renderRoot.activeElement?.matches("button[type=submit]");this.sending=!0,this.error="";try{let s=await e.client.send(e.thread,t);if(e!==this.link)return;this.text="",this.record([{kind:"turn",text:t}]),this.apply(s),this.follow(e)}catch(s){e===this.link&&this.fail(s)}finally{e===this.link&&(this.sending=!1)}i&&(await this.updateComplete,this.renderRoot.querySelector("textarea")?.focus())}async decide(e){let{interrupt:t,decision:i,value:s}=e.detail??{},n=this.link;if(!n||!t?.id||!i)return;this.deciding+=1,n.epoch+=1,this.error="";let o;try{let a={interrupt_id:t.id,decision:i,token:t.token};s!==void 0&&(a.value=s);let p=await n.client.resume(n.thread,a);if(n!==this.link)return;o=this.apply(p,this.decided(t,i,s,p)),this.follow(n)}catch(a){if(n!==this.link)return;let p=a instanceof $&&a.code==="pause_expired";p&&(o=this.expired(t)),this.fail(a),a instanceof $&&(a.code==="interrupt_stale"||p)||(this.waiting=this.waiting.map(h=>h===t?{...h}:h))}finally{n===this.link&&(this.deciding-=1,n.again&&!this.deciding&&this.refresh())}await this.updateComplete,((o===void 0?null:this.renderRoot.querySelector(`[data-entry="${o}"]`))??this.renderRoot.querySelector("[part=log]"))?.focus()}expired(e){if(this.waiting=this.waiting.map(i=>i.id===e.id?{...i,expired:!0}:i),this.entries.some(i=>i.kind==="record"&&i.record?.pause===e.id&&i.record?.decision==="expired"))return;let t=oe({...e,pause:e.id,decision:"expired",by:"",principal:null,at:e.expires_at||void 0});return t?this.record([{kind:"record",record:t,event:""}]):void 0}async rate(e,t){let i=this.link;if(!(!i||!e.id))try{await i.client.feedback(i.thread,e.id,t),i===this.link&&(this.entries=this.entries.map(s=>s.n===e.n?{...s,thumb:t}:s))}catch(s){i===this.link&&this.fail(s)}}decided(e,t,i,s){let n=this.entries.some(a=>a.kind==="record"&&a.record?.pause===e.id&&a.record?.decision===t),o=(s?.waiting??[]).some(a=>a.id===e.id),l=oe({...e,pause:e.id,decision:t,value:i,outcome:o?"approval":"taken",by:"",principal:null,at:void 0});return n||!l?[]:[{kind:"record",record:l,event:""}]}apply(e,t=[]){let i=[...t],s=e?.refusals??[],n=yr(e?.reply?.text??"",s),o=br(e?.steps);(n||o.length)&&i.push({kind:"reply",id:e.reply?.id,text:n,results:o,sources:e.reply?.sources});for(let l of s)i.push({kind:"refusal",sentence:l.sentence,rule:l.rule??""});return e?.rollback&&i.push({kind:"rollback",report:e.rollback}),this.waiting=Oe(this.waiting,e?.waiting),this.record(i)}record(e){if(!e.length)return;let t=(this.entries.at(-1)?.n??0)+1;return this.entries=[...this.entries,...e.map((i,s)=>({...i,n:t+s}))].slice(-mt),t}fail(e){e instanceof $&&e.code==="run_waiting"?this.waiting=Oe(this.waiting,e.body?.waiting):e instanceof $&&(e.code==="interrupt_stale"||e.code==="pause_expired")?this.refresh():this.error=e instanceof Error?e.message:String(e)}keepView(){this.link&&T("sessionStorage",gt(this.link.thread),JSON.stringify({entries:this.entries,trace:this.trace}))}scrollLog(){let e=this.renderRoot.querySelector("[part=log]");e&&(e.scrollTop=e.scrollHeight)}};function Oe(r,e){return(e??[]).map(t=>r.find(i=>i.id===t.id&&i.token===t.token)??t)}function yr(r,e){let t=r;for(let i of e)i?.sentence&&(t=t.replace(i.sentence,""));return t.replace(/\s{2,}/g," ").trim()}function br(r){return Array.isArray(r)?r.filter(e=>e?.status==="done"&&e.result!==null&&e.result!==void 0).map(e=>({tool:String(e.tool??""),result:e.result})):[]}function $r(r){return r.length?d`<ul class="results" aria-label=${c("resultsTitle")}>
    ${r.map(e=>d`<li>${L(e.result,e.tool)}</li>`)}
  </ul>`:""}function _r(r){let e=r.record;return e?d`<div class="entry record" data-entry=${r.n} data-decision=${e.decision} data-outcome=${e.outcome} tabindex="-1">
    <p class="what">${ot(e)}</p>
    <p class="meta muted"><time datetime=${e.at}>${ae(e.at)}</time></p>
  </div>`:""}function vr(r){if(r&&typeof r=="object"){let{title:e,url:t}=r;return String(e??t??JSON.stringify(r))}return String(r)}var gt=r=>`stalwart-view:${r}`;function xr(r){try{let e=JSON.parse(E("sessionStorage",gt(r))??"{}");return{entries:Array.isArray(e.entries)?e.entries:[],trace:Array.isArray(e.trace)?e.trace:[]}}catch{return{entries:[],trace:[]}}}function kr(){let r=E("localStorage",ft);return r||(r=Ar(),T("localStorage",ft,r)),r}function Ar(){if(typeof crypto.randomUUID=="function")return crypto.randomUUID();let r=crypto.getRandomValues(new Uint8Array(16));r[6]=r[6]&15|64,r[8]=r[8]&63|128;let e=[...r].map(t=>t.toString(16).padStart(2,"0")).join("");return`${e.slice(0,8)}-${e.slice(8,12)}-${e.slice(12,16)}-${e.slice(16,20)}-${e.slice(20)}`}var wt={typed:"origin_typed",reply:"origin_reply",context:"origin_context",computed:"origin_computed",model:"origin_model",result:"origin_result",agent:"origin_agent"};function Sr(r){let e=String(r??"").split(":")[0];return Object.hasOwn(wt,e)?wt[e]:void 0}function Ne(r){let e=Sr(r);return e?c(e):String(r??"")}function yt(r,e=t=>t){let t=String(r??""),[i,...s]=t.split(":"),n=`reason_${i.trim()}`;if(!Object.hasOwn(O,n))return t;let o=s.join(":").trim();return c(n,{arg:e(o),tool:o.replace(/^untrusted:/,""),rule:o,language:Er(o),error:o,cause:o})}function Er(r){try{let e=globalThis.document?.documentElement?.lang||void 0;return new Intl.DisplayNames(e?[e]:void 0,{type:"language"}).of(r)??r}catch{return r}}var bt=[v,y`
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
    /* The deadline: quiet until less than an hour is left, then in the warning colour. */
    [part='deadline'] {
      margin: calc(var(--_gap) / 2) 0;
      padding-inline-start: calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_line);
    }
    [part='deadline'][data-urgent] {
      color: var(--_warn);
      font-weight: 600;
      border-inline-start-color: var(--_warn);
    }
    [part='deadline'] + [part='escalation'] {
      margin-top: calc(var(--_gap) / -4);
    }
    [part='escalation'] {
      margin: 0 0 calc(var(--_gap) / 2);
      padding-inline-start: calc(var(--_gap) / 2 + 4px);
    }
    [part='expired'] {
      font-weight: 600;
      margin: calc(var(--_gap) / 2) 0 0;
      padding: calc(var(--_gap) / 4) calc(var(--_gap) / 2);
      border-inline-start: 4px solid var(--_muted);
    }
    [data-expired] {
      border-color: var(--_line);
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
  `];var $t={approve:"approve",skip:"skip",cancel_all:"cancelAll",happened:"happened",did_not_happen:"didNotHappen",retry:"retry",done_by_hand:"doneByHand",abandon:"abandon",answer:"send",decline:"decline"},_t={confirm:"confirmTitle",outcome_unknown:"unknownTitle",saga_stuck:"stuck",delegate:"delegateTitle"},Tr={chosen:{state:!0}},Cr=new Set(["cancel_all","abandon"]),vt={primary:"",secondary:"quiet",danger:"danger"},Or=new Set(["confirm","ask","delegate"]),Re=3600*1e3,Nr=2**31-1,de=class extends b{static get styles(){return bt}static get properties(){return{interrupt:{attribute:!1},...Tr}}constructor(){super(),this.interrupt=null,this.chosen="",this.timer=void 0}disconnectedCallback(){super.disconnectedCallback(),clearTimeout(this.timer),this.timer=void 0}updated(){clearTimeout(this.timer),this.timer=void 0;let e=this.interrupt;if(!e||!this.isConnected)return;let t=xt(e,kt(e));if(t===null||t<=0)return;let i=t>Re?t-Re:t;this.timer=setTimeout(()=>this.requestUpdate(),Math.min(i+50,Nr))}willUpdate(e){e.has("interrupt")&&(this.chosen="")}render(){let e=this.interrupt;if(!e)return d``;let t=kt(e),i=t?.kind||e.kind,s=Et(e,t),n=t?t.question:e.question,o=t?t.irreversible:e.irreversible,l=_(t?.waits_for),a=l&&t?.deciders?.key==="decidesApprover"?"":_(t?.deciders),p=_(t?.asked),u=xt(e,t),h=Or.has(i)&&(e.expired===!0||u!==null&&u<=0);return d`<section part="confirm" aria-labelledby="title" data-kind=${i} ?data-expired=${h}>
      ${o&&!h?d`<p part="irreversible">${c("irreversible")}</p>`:""}
      <h2 id="title" data-title=${e.title??""}>${s}</h2>
      ${i==="confirm"&&n&&n!==`${s}?`?d`<p class="question">${n}</p>`:""}
      ${p?d`<p part="asked" class="muted" data-when=${t?.asked?.values?.when??""}>${p}</p>`:""}
      ${a?d`<p part="deciders" data-key=${t?.deciders?.key}>${a}</p>`:""}
      ${h?"":this.renderDeadline(e,t,u)}
      ${l&&!h?d`<p part="waits-for">${l}</p>`:""}
      ${i==="delegate"?d`<blockquote part="turn">${Ue(e.turn)}</blockquote>`:""}
      ${this.renderArguments(Dr(e,t))} ${this.renderReasons(Ir(e,t))}
      ${i==="saga_stuck"?this.renderPending(e.pending??[]):""}
      ${h?Pr(e,t):i==="ask"?this.renderAsk(t):this.renderChoices(Hr(e,t,o))}
    </section>`}renderDeadline(e,t,i){let s=Rr(e,t),n=Ur(e,t),o=i!==null&&i>0&&i<=Re;return d`${s?d`<p part="deadline" data-key=${s.key} data-when=${String(s.values?.when??"")} ?data-urgent=${o}>${_(s)}</p>`:""}
    ${n?d`<p part="escalation" class="muted" data-key=${n.key}>${_(n)}</p>`:""}`}renderArguments(e){return e.length?d`<div part="arguments">
      <h3>${c("argumentsTitle")}</h3>
      <dl>
        ${e.map(t=>d`<dt data-name=${t.name} title=${t.name}>${t.label}</dt>
            <dd class="value">${t.shown}</dd>
            <dd class="origin muted" data-origin=${t.origin}>${t.words}</dd>`)}
      </dl>
    </div>`:""}renderReasons(e){return e.length?d`<div part="reasons">
      <h3>${c("reasonsTitle")}</h3>
      <ul>
        ${e.map(t=>d`<li data-reason=${t.code} title=${t.code}>${t.text}</li>`)}
      </ul>
    </div>`:""}renderPending(e){return e.length?d`<ul class="pending">
      ${e.map(t=>d`<li>${c("step",{step:t.step})} <span class="tool">${t.tool}</span></li>`)}
    </ul>`:""}renderChoices(e){return e.length?d`<div part="choices">
      ${e.map(t=>d`<button
          type="button"
          class=${t.className}
          data-answer=${t.decision}
          data-variant=${t.style}
          ?disabled=${!!this.chosen}
          @click=${()=>this.decide(t.decision)}
        >${t.text}</button>`)}
    </div>`:""}renderAsk(e){return e&&!e.answers.some(t=>t.decision==="answer")?"":d`<form part="choices" @submit=${this.submitAnswer}>
      <label for="value">${c("answerLabel")}</label>
      <input id="value" name="value" type="text" autocomplete="off" aria-describedby="title" ?readonly=${!!this.chosen} />
      <button type="submit" data-answer="answer" data-variant="primary" ?disabled=${!!this.chosen}>${c("send")}</button>
    </form>`}submitAnswer(e){e.preventDefault();let i=e.currentTarget.elements.namedItem("value").value;i.trim()&&this.decide("answer",i)}decide(e,t){if(this.chosen||!this.interrupt)return;this.chosen=e;let i=t===void 0?{interrupt:this.interrupt,decision:e}:{interrupt:this.interrupt,decision:e,value:t};this.dispatchEvent(new CustomEvent("stalwart-decision",{bubbles:!0,composed:!0,detail:i}))}};function Rr(r,e){return e&&Object.hasOwn(e,"deadline")?J(e.deadline)?e.deadline:null:typeof r.expires_at!="string"?null:{key:At(r,e)?"deadlineCancel":"deadlineSkip",values:{when:r.expires_at}}}function Ur(r,e){if(e&&Object.hasOwn(e,"escalation"))return J(e.escalation)?e.escalation:null;let t=r.escalation;if(!t||typeof t!="object"||typeof t.at!="string")return null;let i=t.to;return t.done?i?{key:"escalated",values:{who:i}}:{key:"escalatedOverdue",values:{}}:i?{key:"escalatesAt",values:{who:i,when:t.at}}:{key:"overdueAt",values:{when:t.at}}}function At(r,e){return r.on_expiry==="cancel_all"||e?.deadline?.key==="deadlineCancel"}function St(r,e){if(typeof r.expires_at=="string")return r.expires_at;let t=e?.deadline?.values?.when;return typeof t=="string"?t:""}function xt(r,e){let t=Date.parse(St(r,e));return Number.isNaN(t)?null:t-Date.now()}function Pr(r,e){let t=St(r,e),i=At(r,e)?"expiredCancel":"expiredSkip",s=t?_({key:i,values:{when:t}}):c("outcome_expired",{title:Et(r,e)});return d`<p part="expired" data-key=${i} data-when=${t}>${s}</p>`}function kt(r){let e=r.card;return e&&typeof e=="object"&&Array.isArray(e.answers)?e:null}function Et(r,e){let t=e?.kind||r.kind;if(t==="ask")return r.prompt||e?.question||r.question||"";let i=e?.title||r.title,s=i||r.tool;return t==="confirm"&&i&&i!==r.tool?i:Object.hasOwn(_t,t)?c(_t[t],{tool:s}):e?.question||r.question||t}function Dr(r,e){let t=Array.isArray(r.arguments)?r.arguments:[];return e?(Array.isArray(e.arguments)?e.arguments:[]).map(i=>{let s=t.find(o=>o.name===i.name),n=i.source?.title?Tt(i.source.title,i.source,s?.source?.truncated):J(i.origin)?_(i.origin):Ne(i.origin);return{name:i.name,label:i.label||i.name,shown:i.shown??Ue(i.value),origin:s?.origin??i.origin?.key??"",words:n}}):t.map(i=>({name:i.name,label:i.label||i.name,shown:Ue(i.value),origin:i.origin??"",words:Lr(i)}))}function Ir(r,e){let t=Array.isArray(r.reasons)?r.reasons:[];if(!e){let i=Array.isArray(r.arguments)?r.arguments:[],s=n=>i.find(o=>o.name===n)?.label||n;return t.map(n=>({code:n,text:yt(n,s)}))}return(Array.isArray(e.reasons)?e.reasons:[]).map((i,s)=>({code:String(t[s]??i?.key??""),text:_(i)}))}function Hr(r,e,t){let i=(s,n)=>n==="primary"&&t&&s==="approve"?"irreversible":vt[n]??"quiet";return e?e.answers.map(s=>{let n=Object.hasOwn(vt,s.style)?s.style:"secondary";return{decision:s.decision,text:_(s.words)||s.decision,style:n,className:i(s.decision,n)}}):(r.answers??[]).map((s,n)=>{let o=Cr.has(s)?"danger":n?"secondary":"primary";return{decision:s,text:jr(r,s),style:o,className:i(s,o)}})}function jr(r,e){return r.kind==="delegate"&&e==="approve"?c("delegateApprove"):r.irreversible&&e==="approve"?c("approveIrreversible"):Pe(e)}function Pe(r){return Object.hasOwn($t,r)?c($t[r]):r}function Lr(r){let e=r.source;return e?.tool?Tt(e.tool,e,e.truncated):Ne(r.origin)}function Tt(r,e,t){let i=c("origin_from",{tool:r});return t?d`${i} <span class="too-large">${c("sourceTooLarge")}</span>`:Object.hasOwn(e,"value")?d`${i} ${L(e.value,c("showSource"))}`:i}function Ue(r){return typeof r=="string"?r:JSON.stringify(r)}var Ct=[v,y`
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
  `];var Mr={open:{state:!0}},he=class extends b{static get styles(){return Ct}static get properties(){return{rule:{type:String},sentence:{type:String},...Mr}}constructor(){super(),this.rule="",this.sentence="",this.open=!1}render(){return d`<div part="decision">
      <p><span class="label refused">${c("refused")}</span> <span class="sentence">${this.sentence}</span></p>
      ${this.rule?d`<button type="button" class="quiet" aria-expanded=${this.open?"true":"false"} aria-controls="rule" @click=${this.toggle}>${c("showRule")}</button>
            <div id="rule" part="rule" ?hidden=${!this.open}>
              <span class="label">${c("rule")}</span> <span class="rule">${this.rule}</span>
            </div>`:""}
    </div>`}toggle(){this.open=!this.open}};var Ot={ATTRIBUTE:1,CHILD:2,PROPERTY:3,BOOLEAN_ATTRIBUTE:4,EVENT:5,ELEMENT:6},Nt=r=>(...e)=>({_$litDirective$:r,values:e}),pe=class{constructor(e){}get _$AU(){return this._$AM._$AU}_$AT(e,t,i){this._$Ct=e,this._$AM=t,this._$Ci=i}_$AS(e,t){return this.update(e,t)}update(e,t){return this.render(...t)}};var{I:Br}=Xe,Rt=r=>r;var Ut=()=>document.createComment(""),M=(r,e,t)=>{let i=r._$AA.parentNode,s=e===void 0?r._$AB:e._$AA;if(t===void 0){let n=i.insertBefore(Ut(),s),o=i.insertBefore(Ut(),s);t=new Br(n,o,r,r.options)}else{let n=t._$AB.nextSibling,o=t._$AM,l=o!==r;if(l){let a;t._$AQ?.(r),t._$AM=r,t._$AP!==void 0&&(a=r._$AU)!==o._$AU&&t._$AP(a)}if(n!==s||l){let a=t._$AA;for(;a!==n;){let p=Rt(a).nextSibling;Rt(i).insertBefore(a,s),a=p}}}return t},N=(r,e,t=r)=>(r._$AI(e,t),r),qr={},Pt=(r,e=qr)=>r._$AH=e,Dt=r=>r._$AH,ue=r=>{r._$AR(),r._$AA.remove()};var It=(r,e,t)=>{let i=new Map;for(let s=e;s<=t;s++)i.set(r[s],s);return i},Ht=Nt(class extends pe{constructor(r){if(super(r),r.type!==Ot.CHILD)throw Error("repeat() can only be used in text expressions")}dt(r,e,t){let i;t===void 0?t=e:e!==void 0&&(i=e);let s=[],n=[],o=0;for(let l of r)s[o]=i?i(l,o):o,n[o]=t(l,o),o++;return{values:n,keys:s}}render(r,e,t){return this.dt(r,e,t).values}update(r,[e,t,i]){let s=Dt(r),{values:n,keys:o}=this.dt(e,t,i);if(!Array.isArray(s))return this.ut=o,n;let l=this.ut??=[],a=[],p,u,h=0,m=s.length-1,f=0,w=n.length-1;for(;h<=m&&f<=w;)if(s[h]===null)h++;else if(s[m]===null)m--;else if(l[h]===o[f])a[f]=N(s[h],n[f]),h++,f++;else if(l[m]===o[w])a[w]=N(s[m],n[w]),m--,w--;else if(l[h]===o[w])a[w]=N(s[h],n[w]),M(r,a[w+1],s[h]),h++,w--;else if(l[m]===o[f])a[f]=N(s[m],n[f]),M(r,s[h],s[m]),m--,f++;else if(p===void 0&&(p=It(o,f,w),u=It(l,h,m)),p.has(l[h]))if(p.has(l[m])){let x=u.get(o[f]),we=x!==void 0?s[x]:null;if(we===null){let Ie=M(r,s[h]);N(Ie,n[f]),a[f]=Ie}else a[f]=N(we,n[f]),M(r,s[h],we),s[x]=null;f++}else ue(s[m]),m--;else ue(s[h]),h++;for(;f<=w;){let x=M(r,a[w+1]);N(x,n[f]),a[f++]=x}for(;h<=m;){let x=s[h++];x!==null&&ue(x)}return this.ut=o,Pt(r,a),S}});var jt=[v,y`
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
  `];var Yr=Object.fromEntries(["rows","next","loaded","loading","error","notice","failed","tools"].map(r=>[r,{state:!0}])),Wr=["confirm","ask","outcome_unknown","saga_stuck","delegate"],zr=["base","kind","tool","pageSize","fetcher"],Kr=50,Vr=4,fe=class extends b{static get styles(){return jt}static get properties(){return{base:{type:String},kind:{type:String,reflect:!0},tool:{type:String,reflect:!0},pageSize:{type:Number,attribute:"page-size"},fetcher:{attribute:!1},...Yr}}constructor(){super(),this.base="",this.kind="",this.tool="",this.pageSize=Kr,this.fetcher=globalThis.fetch,Object.assign(this,{rows:[],next:"",loaded:!1,loading:!1,error:"",notice:[],failed:{},tools:{}}),this.client=null,this.epoch=0,this.addEventListener("stalwart-decision",e=>this.decide(e))}connectedCallback(){super.connectedCallback(),this.hasUpdated&&this.refresh()}disconnectedCallback(){super.disconnectedCallback(),this.epoch+=1}willUpdate(e){zr.some(t=>e.has(t))&&(this.client=new j(this.base,this.fetcher),Object.assign(this,{rows:[],next:"",loaded:!1,failed:{}}),this.isConnected&&this.refresh())}updated(){for(let e of this.renderRoot.querySelectorAll("[part=filters] select")){let t=e.name==="tool"?this.tool:this.kind;e.value!==t&&(e.value=t??"")}}render(){let e=V(this.theme||void 0);return d`<div class="bar">
        <h2 id="title" part="title">${c("inboxTitle")}</h2>
        <button type="button" part="refresh" class="quiet" ?disabled=${this.loading} @click=${this.refresh}>${c("refresh")}</button>
      </div>
      ${this.renderFilters()}
      <div part="status" role="status" class=${this.error?"bad":this.notice.length&&!this.loading?"notice":""}>${this.statusText()}</div>
      <p part="empty" class="muted" tabindex="-1" ?hidden=${!this.loaded||this.rows.length>0||!!this.next}>${c("inboxEmpty")}</p>
      <ul part="list" role="list" aria-labelledby="title" ?hidden=${!this.rows.length}>
        ${Ht(this.rows,t=>t.id,(t,i)=>this.renderRow(t,i,e))}
      </ul>
      <button type="button" part="more" class="quiet" ?hidden=${!this.next} ?disabled=${this.loading} @click=${this.more}>${c("loadMore")}</button>`}renderFilters(){let e=Object.entries({...this.tool?{[this.tool]:this.tool}:{},...this.tools}).sort((s,n)=>s[1].localeCompare(n[1])),t=(s,n,o)=>d`<option value=${s} ?selected=${s===o}>${n}</option>`,i=!e.length&&!this.kind&&!this.rows.length;return d`<div part="filters" ?hidden=${i}>
      <span class="filter">
        <label for="filter-tool">${c("filterTool")}</label>
        <select id="filter-tool" name="tool" @change=${s=>this.tool=Lt(s)}>
          ${t("",c("allTools"),this.tool)} ${e.map(([s,n])=>t(s,n,this.tool))}
        </select>
      </span>
      <span class="filter">
        <label for="filter-kind">${c("filterKind")}</label>
        <select id="filter-kind" name="kind" @change=${s=>this.kind=Lt(s)}>
          ${t("",c("allKinds"),this.kind)} ${Wr.map(s=>t(s,c(`kind_${s}`),this.kind))}
        </select>
      </span>
    </div>`}renderRow(e,t,i){let s=this.failed[e.id];return d`<li part="row" class="row" data-id=${e.id} data-thread=${e.thread} tabindex="-1" aria-labelledby=${`thread-${t}`}>
      <p part="thread" id=${`thread-${t}`}>${e.turn?d`<q part="last-words">${e.turn}</q>`:c("threadTitle",{thread:e.thread})}</p>
      ${e.approvals&&!e.card?d`<p part="approvals">${Gr(e.approvals)}</p>`:""}
      ${s?d`<p part="row-error" role="alert">${c("error",{message:s})}</p>`:""}
      <stalwart-confirm .interrupt=${e} theme=${i}></stalwart-confirm>
    </li>`}statusText(){return this.error?c("error",{message:this.error}):this.loading?c("loading"):this.notice.map(e=>d`<span class=${e.bad?"line bad":"line"}>${e.text}</span>`)}refresh(){return this.read("")}async more(){if(!this.next)return;let e=this.rows.length,t=this.renderRoot.activeElement?.matches("[part=more]");await this.read(this.next),t&&this.rows.length>e&&this.focusRow(e)}async read(e){let t=this.client;if(!t||e&&this.loading)return;let i=e?this.epoch:++this.epoch;this.loading=!0,this.error="",e||(this.notice=[]);try{let s=await t.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:e});for(let o=0;o<Vr&&!s?.waiting?.length&&s?.next;o+=1){if(i!==this.epoch)return;s=await t.inbox({kind:this.kind,tool:this.tool,limit:this.pageSize,cursor:s.next})}if(i!==this.epoch)return;let n=Array.isArray(s?.waiting)?s.waiting:[];e?this.rows=[...this.rows,...n.filter(o=>!this.rows.some(l=>l.id===o.id))]:(this.rows=n,this.failed={}),this.next=s?.next||"",this.loaded=!0,this.tools=Fr(this.tools,n)}catch(s){i===this.epoch&&(this.error=Mt(s))}finally{i===this.epoch&&(this.loading=!1)}}async decide(e){let{interrupt:t,decision:i,value:s}=e.detail??{},n=this.client;if(!n||!t?.id||!i)return;let o=this.epoch,l={interrupt_id:t.id,decision:i,token:t.token};s!==void 0&&(l.value=s),this.failed=Bt(this.failed,t.id);try{let a=await n.resume(t.thread,l);if(o!==this.epoch)return;let p=(a?.waiting??[]).find(u=>u.id===t.id);p?this.counted({...t,...p}):this.answered(t,i,s,a)}catch(a){if(o!==this.epoch)return;if(a instanceof $&&a.code==="pause_expired"){this.expired(t);return}this.failed={...this.failed,[t.id]:Mt(a)},a instanceof $&&a.code==="interrupt_stale"||(this.rows=this.rows.map(h=>h===t?{...h}:h));let u=this.rows.findIndex(h=>h.id===t.id);u>=0&&this.focusRow(u)}}expired(e){this.rows=this.rows.map(i=>i.id===e.id?{...i,expired:!0}:i);let t=e.card?.title||e.title||e.tool||"";this.notice=[{text:c("outcome_expired",{title:t})}],this.focusRow(this.rows.findIndex(i=>i.id===e.id))}counted(e){this.rows=this.rows.map(t=>t.id===e.id?e:t),this.notice=[{text:c("outcomeCounted")}],this.focusRow(this.rows.indexOf(e))}answered(e,t,i,s){let n=this.rows.findIndex(l=>l.id===e.id),o=(Array.isArray(s?.waiting)?s.waiting:[]).filter(l=>l?.id&&l.id!==e.id&&!this.rows.some(a=>a.id===l.id)).map(l=>({turn:e.turn,...l}));this.rows=[...this.rows.slice(0,Math.max(n,0)),...o,...this.rows.slice(n+1)],this.failed=Bt(this.failed,e.id),this.notice=Jr(e,t,i,s,o.length>0),this.focusRow(Math.min(n,this.rows.length-1))}async focusRow(e){await this.updateComplete;let t=this.renderRoot.querySelectorAll("[part=row]"),i=this.next?this.renderRoot.querySelector("[part=more]"):null;(t[e]??t[t.length-1]??i??this.renderRoot.querySelector("[part=empty]"))?.focus()}};function Jr(r,e,t,i,s){let n=r.card?.title||r.title||r.tool||"",o=e==="answer"&&t!==void 0?String(t):Pe(e),l=[{text:c("inboxAnswered",{decision:o,title:n})}],p=[...Array.isArray(i?.steps)?i.steps:[]].reverse().find(h=>h?.step===r.step&&(!r.tool||h.tool===r.tool)),u=`outcome_${p?.status}`;return p&&Object.hasOwn(O,u)&&l.push({text:c(u,{title:n}),bad:p.status==="failed"}),s&&l.push({text:c("outcomeWaits")}),l}function Fr(r,e){let t=e.filter(i=>i?.tool&&!Object.hasOwn(r,i.tool));return t.length?{...r,...Object.fromEntries(t.map(i=>[i.tool,String(i.label||i.tool)]))}:r}function Lt(r){return r.currentTarget.value}function Gr(r){let e=r.given??[];if(!e.length)return c("approvalsNone",{needed:r.needed});let t=e.map(i=>i.by||i.principal?.sub||"").join(", ");return c("approvalsGiven",{names:t,given:e.length,needed:r.needed})}function Mt(r){return r instanceof Error?r.message:String(r)}function Bt(r,e){if(!Object.hasOwn(r,e))return r;let t={...r};return delete t[e],t}var qt=[v,y`
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
  `];var me=class extends b{static get styles(){return qt}static get properties(){return{report:{attribute:!1}}}constructor(){super(),this.report=null}render(){let e=this.report?.undone??[],t=this.report?.not_undone??[];return d`<section part="rollback" aria-labelledby="title" ?hidden=${!this.report}>
      <h2 id="title">${c("rollbackTitle")}</h2>
      ${e.length?d`<ul class="undone">
            ${e.map(i=>Yt(c("undone"),i,i.by==="person"?i.by:""))}
          </ul>`:""}
      ${t.length?d`<ul class="not-undone">
            ${t.map(i=>Yt(c("notUndoable"),i,i.why))}
          </ul>`:""}
    </section>`}};function Yt(r,e,t){return d`<li>
    <span class="label">${r}</span> <span class="tool">${e.tool}</span>
    ${t?d` <span class="muted">(${t})</span>`:""}
  </li>`}var Wt=[v,y`
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
  `];var ge=class extends b{static get styles(){return Wt}static get properties(){return{events:{attribute:!1}}}constructor(){super(),this.events=[]}render(){let e=(this.events??[]).filter(t=>t&&t.tool&&(t.type??"step")==="step");return d`<section part="trace" aria-labelledby="title">
      <h2 id="title">${c("traceTitle")}</h2>
      <ol>
        ${e.map(t=>d`<li>
            <span class="step">${c("step",{step:Qr(t)})}</span>
            <span class="tool">${t.tool}</span>
            <span class="status muted">${t.status??""}</span>
            ${t.result===null||t.result===void 0?"":L(t.result)}
          </li>`)}
      </ol>
    </section>`}};function Qr(r){return r.key!=null?r.key:r.call!=null?`${r.step}.${r.call}`:r.step}var zt="stalwart-access-token",Zr='stalwart-chat[data-signin="fragment"], stalwart-inbox[data-signin="fragment"]';function Kt(r){let e=Xr()||E("sessionStorage",zt)||"";return e&&(r.fetcher=ei(r.fetcher,e)),e}function De(r){let e=r.querySelectorAll(Zr);for(let t of e)Kt(t)}function Xr(){let r=new URLSearchParams(location.hash.slice(1)).get("access_token");return r?(T("sessionStorage",zt,r),history.replaceState(history.state,"",location.pathname+location.search),r):""}function ei(r,e){return(t,i={})=>{let s=new Headers(i.headers);return s.set("Authorization",`Bearer ${e}`),r.call(globalThis,t,{...i,headers:s})}}customElements.get("stalwart-chat")||customElements.define("stalwart-chat",ce);customElements.get("stalwart-confirm")||customElements.define("stalwart-confirm",de);customElements.get("stalwart-decision")||customElements.define("stalwart-decision",he);customElements.get("stalwart-rollback")||customElements.define("stalwart-rollback",me);customElements.get("stalwart-trace")||customElements.define("stalwart-trace",ge);customElements.get("stalwart-inbox")||customElements.define("stalwart-inbox",fe);document.readyState==="loading"?document.addEventListener("DOMContentLoaded",()=>De(document),{once:!0}):De(document);export{ce as StalwartChat,de as StalwartConfirm,he as StalwartDecision,fe as StalwartInbox,me as StalwartRollback,ge as StalwartTrace,st as format,or as setStrings,it as shipped,Kt as signInFromFragment,O as strings};
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
